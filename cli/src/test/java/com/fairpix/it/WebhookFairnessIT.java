package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.job.JobEvent;
import com.fairpix.core.job.JobIds;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.JobState;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.json.Json;
import com.fairpix.core.redis.Redis;
import com.fairpix.ingest.IngestApi;
import com.fairpix.webhooks.DeliveryStore;
import com.fairpix.webhooks.WebhookDelivery;
import com.fairpix.webhooks.WebhooksService;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * Webhooks are fair across tenants, on the real stack: tenant A has five tarpit endpoints (they
 * accept the connection and never answer) and a pile of events; tenant B has one healthy endpoint.
 * B's deliveries keep the latency B had alone (measured first, in the same test); A's deliveries
 * waiting for an attempt never exceed {@code webhooks.max-pending-per-tenant}, the rest being
 * dead-lettered with the reason; A's put-off deliveries are rescheduled later and later rather than
 * churning the due set.
 */
class WebhookFairnessIT {
    static final int TARPITS = 5;
    static final int CAP = 40;
    static final int A_EVENTS = 150;

    /** A port that accepts connections and never answers: every attempt to it lasts its whole 15 s deadline. */
    static final class Tarpit implements AutoCloseable {
        final ServerSocket server;
        final List<Socket> held = new CopyOnWriteArrayList<>();

        Tarpit() throws IOException {
            server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
            Thread.ofVirtual().start(() -> {
                while (!server.isClosed()) {
                    try {
                        held.add(server.accept());
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        String url() {
            return "http://127.0.0.1:" + server.getLocalPort() + "/hook";
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : held) s.close();
        }
    }

    @Test
    void tarpitEndpointsOfOneTenantNeitherDelayAnotherNorGrowTheDueWorkBeyondTheCap() throws Exception {
        FairpixConfig config = Webhooks.config("2s,2s,2s,2s,2s")
                .with(Setting.WEBHOOKS_ENDPOINT_CONCURRENCY, "2")
                .with(Setting.WEBHOOKS_TENANT_CONCURRENCY, "4")
                .with(Setting.WEBHOOKS_MAX_PENDING_PER_TENANT, Integer.toString(CAP));
        List<Tarpit> tarpits = new ArrayList<>();
        for (int i = 0; i < TARPITS; i++) tarpits.add(new Tarpit());
        try (Receiver receiver = new Receiver(); IngestApi ingest = IngestApi.start(config);
             UnifiedJedis redis = Redis.connect(config.get(Setting.REDIS_URL))) {
            Farm.Client client = new Farm.Client(ingest.port());
            String a = Farm.tenantId("it-whf-tarpit");
            String b = Farm.tenantId("it-whf-healthy");
            client.createTenant(a, Map.of());
            client.createTenant(b, Map.of());
            client.send("PATCH", "/admin/v1/tenants/" + a, Json.write(Map.of("webhookUrl", tarpits.getFirst().url())));
            client.send("PATCH", "/admin/v1/tenants/" + b, Json.write(Map.of("webhookUrl", receiver.url("/fast"))));
            DeliveryStore store = DeliveryStore.redis(redis, Duration.ofHours(1));
            JobStore jobs = JobStore.redis(redis, 3600);
            WebhooksService dispatcher = WebhooksService.start(config, -1);
            try {
                List<Duration> alone = measureB(config, store, receiver, b, 5);

                // A's jobs name their own endpoints (spread over the tarpits); then their completions arrive at once.
                List<JobEvent> pile = new ArrayList<>();
                for (int i = 0; i < A_EVENTS; i++) {
                    String jobId = JobIds.next(Clock.systemUTC());
                    String url = tarpits.get(i % TARPITS).url();
                    jobs.create(new JobRecord(jobId, a, JobState.QUEUED, "cpu", Instant.now(), null, null, null,
                            new JobRecord.Original("tenants/" + a + "/originals/x.jpg", "jpeg", 1, "0", 1, 1),
                            JobSpec.parse("{\"variants\":{\"t\":[{\"op\":\"encode\",\"format\":\"jpeg\"}]},\"webhookUrl\":\"" + url + "\"}"), Map.of(), null, 0));
                    pile.add(Webhooks.completion(a, jobId, true, null, 1));
                }
                Webhooks.publish(config, pile.toArray(JobEvent[]::new));
                long[] maxPending = new long[1];
                Webhooks.await(() -> {
                    maxPending[0] = Math.max(maxPending[0], store.pending(a));
                    return store.deadSince(a, Instant.EPOCH).size() == A_EVENTS - CAP;
                }, Duration.ofSeconds(30), "A's deliveries past the cap dead-lettered");
                Webhooks.await(() -> tarpits.stream().mapToInt(t -> t.held.size()).sum() >= 4, Duration.ofSeconds(10), "A's first attempts held by the tarpits");
                WebhookDelivery refused = store.get(a, store.deadSince(a, Instant.EPOCH).getFirst()).orElseThrow();
                assertThat(refused.reason()).contains(Setting.WEBHOOKS_MAX_PENDING_PER_TENANT.key());
                assertThat(refused.attempts()).isEmpty();

                Map<String, WebhookDelivery> before = putOff(store, a, pile);
                List<Duration> loaded = measureB(config, store, receiver, b, 5);
                maxPending[0] = Math.max(maxPending[0], store.pending(a));
                // Put-offs back off up to 30 s: wait until one of them was put off again.
                Webhooks.await(() -> putOff(store, a, pile).entrySet().stream()
                        .anyMatch(e -> before.containsKey(e.getKey()) && e.getValue().deferrals() > before.get(e.getKey()).deferrals()),
                        Duration.ofSeconds(45), "a put-off delivery of A put off again");
                maxPending[0] = Math.max(maxPending[0], store.pending(a));
                Map<String, WebhookDelivery> after = putOff(store, a, pile);

                Duration aloneMax = alone.stream().max(Duration::compareTo).orElseThrow();
                Duration loadedMax = loaded.stream().max(Duration::compareTo).orElseThrow();
                System.out.printf("WebhookFairnessIT: B alone %s; B beside A's %d tarpit deliveries %s; A pending max %d (cap %d); A put off %d, then %d%n",
                        alone, A_EVENTS, loaded, maxPending[0], CAP, before.size(), after.size());
                assertThat(loadedMax).as("B beside A's tarpits vs B alone (%s)", alone).isLessThanOrEqualTo(aloneMax.multipliedBy(2).plusMillis(500));
                assertThat(maxPending[0]).as("A's pending deliveries").isLessThanOrEqualTo(CAP);
                assertThat(before).as("A has put-off deliveries").isNotEmpty();
                int advanced = 0;
                for (var e : after.entrySet()) {
                    WebhookDelivery then = before.get(e.getKey());
                    if (then == null || e.getValue().deferrals() <= then.deferrals()) continue;
                    assertThat(e.getValue().nextAttemptAt()).as("next attempt of a delivery put off again").isAfter(then.nextAttemptAt());
                    assertThat(e.getValue().seriesAttempt()).as("a put-off is no attempt").isEqualTo(then.seriesAttempt());
                    advanced++;
                }
                assertThat(advanced).as("put-off deliveries put off again").isPositive();
            } finally {
                dispatcher.stop(Duration.ofSeconds(1));
                for (Tarpit t : tarpits) t.close();
            }
        }
    }

    /** A's pending deliveries put off at least once, by id. */
    private static Map<String, WebhookDelivery> putOff(DeliveryStore store, String a, List<JobEvent> pile) {
        Map<String, WebhookDelivery> out = new HashMap<>();
        for (JobEvent e : pile) {
            store.get(a, e.eventId()).filter(d -> d.status() == WebhookDelivery.Status.PENDING && d.deferrals() > 0).ifPresent(d -> out.put(d.id(), d));
        }
        return out;
    }

    /** B's deliveries one after another: from the dispatcher storing each to its arrival at B's receiver. */
    private static List<Duration> measureB(FairpixConfig config, DeliveryStore store, Receiver receiver, String b, int n) throws Exception {
        List<Duration> latencies = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int seen = receiver.at("/fast").size();
            JobEvent event = Webhooks.completion(b, JobIds.next(Clock.systemUTC()), true, null, 1);
            Webhooks.publish(config, event);
            Webhooks.await(() -> receiver.at("/fast").size() == seen + 1, Duration.ofSeconds(15), "tenant B's delivery");
            Instant stored = store.get(b, event.eventId()).orElseThrow().createdAt();
            latencies.add(Duration.between(stored, receiver.at("/fast").get(seen).at()));
        }
        return latencies;
    }
}
