package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.job.JobEvent;
import com.fairpix.core.job.JobIds;
import com.fairpix.core.json.Json;
import com.fairpix.core.redis.Redis;
import com.fairpix.webhooks.DeliveryStore;
import redis.clients.jedis.UnifiedJedis;
import com.fairpix.ingest.IngestApi;
import com.fairpix.webhooks.WebhooksService;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One slow endpoint delays no other tenant's deliveries, on the real stack: tenant A's receiver sleeps 30 s per request; tenant B's deliveries, queued
 * behind a burst of A's, still arrive within a couple of seconds, and A never has more than its
 * endpoint's concurrency limit of requests in flight.
 */
class WebhookIsolationIT {
    @Test
    void aSlowEndpointOfOneTenantNeverDelaysAnothersDeliveries() throws Exception {
        FairpixConfig config = Webhooks.config("5s").with(Setting.WEBHOOKS_ENDPOINT_CONCURRENCY, "2");
        try (Receiver receiver = new Receiver(); IngestApi ingest = IngestApi.start(config);
             UnifiedJedis redis = Redis.connect(config.get(Setting.REDIS_URL))) {
            receiver.otherwise("/slow", new Receiver.Answer(200, Map.of(), 30_000));
            Farm.Client client = new Farm.Client(ingest.port());
            String a = Farm.tenantId("it-wh-slow");
            String b = Farm.tenantId("it-wh-fast");
            client.createTenant(a, Map.of());
            client.createTenant(b, Map.of());
            client.send("PATCH", "/admin/v1/tenants/" + a, Json.write(Map.of("webhookUrl", receiver.url("/slow"))));
            client.send("PATCH", "/admin/v1/tenants/" + b, Json.write(Map.of("webhookUrl", receiver.url("/fast"))));
            WebhooksService dispatcher = WebhooksService.start(config, -1);
            try {
                List<JobEvent> burst = new ArrayList<>();
                for (int i = 0; i < 20; i++) burst.add(Webhooks.completion(a, JobIds.next(Clock.systemUTC()), true, null, 1));
                Webhooks.publish(config, burst.toArray(JobEvent[]::new));
                Webhooks.await(() -> receiver.at("/slow").size() >= 2, Duration.ofSeconds(15), "tenant A's first attempts");
                // Measured from the moment the dispatcher stored B's delivery (intake done) to its arrival:
                // the part A's slow endpoint could delay. Kafka's own latency (a consumer-group
                // reconciliation can take a 5 s heartbeat) is bounded separately by the 10 s wait.
                DeliveryStore store = DeliveryStore.redis(redis, Duration.ofHours(1));
                List<Duration> latencies = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    JobEvent event = Webhooks.completion(b, JobIds.next(Clock.systemUTC()), true, null, 1);
                    Webhooks.publish(config, event);
                    int want = i + 1;
                    Webhooks.await(() -> receiver.at("/fast").size() == want, Duration.ofSeconds(10), "tenant B's delivery " + want);
                    Instant stored = store.get(b, event.eventId()).orElseThrow().createdAt();
                    latencies.add(Duration.between(stored, receiver.at("/fast").get(i).at()));
                }
                assertThat(latencies).allMatch(d -> d.compareTo(Duration.ofSeconds(2)) < 0);
                assertThat(receiver.maxConcurrent.get()).as("A's in-flight requests (limit 2) + B's").isLessThanOrEqualTo(3);
                assertThat(receiver.at("/slow")).hasSizeLessThanOrEqualTo(2);
            } finally {
                dispatcher.stop(Duration.ofSeconds(1));
            }
        }
    }
}
