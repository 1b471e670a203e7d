package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.job.JobIds;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.tenant.TenantStore;
import com.fairpix.webhooks.DeliveryStore;
import com.fairpix.webhooks.WebhookDelivery;
import com.fairpix.ingest.IngestApi;
import com.fairpix.webhooks.WebhooksService;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * DNS rebinding cannot turn a checked webhook URL into a request to a local address, on the real stack: the callback host resolves first to a public address, then
 * to 127.0.0.1, alternating. A dispatcher that looked the name up twice per attempt (once to check,
 * once to connect) would reach the receiver on 127.0.0.1; ours resolves once and connects only to
 * the checked address, and refuses the attempt whose single lookup says 127.0.0.1.
 */
class WebhookSsrfIT {
    @Test
    void theConnectionGoesOnlyToTheCheckedAddressAndNothingReaches127001() throws Exception {
        // No allow list here: 127.0.0.1 is denied, as in production.
        FairpixConfig config = Webhooks.config("1s,1s").with(Setting.WEBHOOKS_ALLOW_LIST, "");
        AtomicInteger lookups = new AtomicInteger();
        InetAddress publicAddress = InetAddress.getByName("93.184.216.34");
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        try (Receiver receiver = new Receiver();
             IngestApi ingest = IngestApi.start(config);
             UnifiedJedis redis = Redis.connect(config.get(Setting.REDIS_URL))) {
            Farm.Client client = new Farm.Client(ingest.port());
            String tenant = Farm.tenantId("it-wh-rebind");
            client.createTenant(tenant, Map.of());
            // Registered while the name still resolved to the public address (the ingest-api's own
            // system DNS cannot resolve rebind.test, so the test writes the URL as registration would).
            String url = "http://rebind.test:" + receiver.port() + "/hook";
            new TenantStore(redis, Clock.systemUTC()).update(tenant, t -> t.patched(com.fairpix.core.json.Json.mapper().createObjectNode().put("webhookUrl", url)));

            WebhooksService dispatcher = WebhooksService.start(config, com.fairpix.webhooks.DispatcherConfig.from(config), -1, host -> {
                if (!host.equals("rebind.test")) throw new java.net.UnknownHostException(host);
                return new InetAddress[] {lookups.incrementAndGet() % 2 == 1 ? publicAddress : loopback};
            });
            try {
                String jobId = JobIds.next(Clock.systemUTC());
                Webhooks.publish(config, Webhooks.completion(tenant, jobId, true, null, 1));
                DeliveryStore deliveries = DeliveryStore.redis(redis, Duration.ofHours(1));
                String id = "evt_" + jobId + "_done";
                Webhooks.await(() -> deliveries.get(tenant, id).map(d -> d.status() == WebhookDelivery.Status.DEAD).orElse(false),
                        Duration.ofSeconds(40), "the delivery to die after 3 attempts");
                WebhookDelivery d = deliveries.get(tenant, id).orElseThrow();
                assertThat(receiver.all()).as("nothing reaches 127.0.0.1").isEmpty();
                assertThat(d.attempts()).hasSize(3);
                // One lookup per attempt: the connection never asked DNS again.
                assertThat(lookups.get()).isEqualTo(3);
                // Attempts 1 and 3 were checked against 93.184.216.34 and could only go there (no route
                // from this sandbox, so they fail); attempt 2's lookup said 127.0.0.1 and was refused.
                assertThat(d.attempts().get(0).statusCode()).isNull();
                assertThat(d.attempts().get(1).error()).startsWith("refused:").contains("127.0.0.1").contains("loopback");
                assertThat(d.attempts().get(2).statusCode()).isNull();
            } finally {
                dispatcher.stop(Duration.ofSeconds(2));
            }
        }
    }
}
