package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.autoscaler.Autoscaler;
import com.fairpix.autoscaler.AutoscalerService;
import com.fairpix.autoscaler.policy.Decision;
import com.fairpix.autoscaler.policy.Reason;
import com.fairpix.core.Corpus;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.Topics;
import com.fairpix.ingest.IngestApi;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The autoscaler with the local actuator on the real stack: a flood on the gpu pool builds lag → a
 * second {@code fairpix worker} process starts within 30 s → the lag drains → the extra worker is
 * stopped with SIGTERM after the (shortened) stabilization window, and every job is DONE exactly
 * once (one job.succeeded event per job on fairpix.events). Runs on the gpu pool so that no other
 * test's in-process worker takes the jobs.
 */
class AutoscalerIT {
    static final int TENANTS = 3;
    static final int JOBS_PER_TENANT = 40;
    static IngestApi ingest;
    static Autoscaler autoscaler;
    static Farm.Client client;
    static FairpixConfig config;

    @BeforeAll
    static void start() throws Exception {
        Path workerLogs = Files.createDirectories(Path.of("target", "autoscaler-it-workers"));
        config = Farm.config()
                .with(Setting.AUTOSCALER_POOLS, "gpu")
                .with(Setting.AUTOSCALER_ACTUATOR, "local")
                .with(Setting.AUTOSCALER_INTERVAL_SECONDS, "1")
                .with(Setting.AUTOSCALER_MIN_REPLICAS, "1")
                .with(Setting.AUTOSCALER_MAX_REPLICAS, "2")
                .with(Setting.AUTOSCALER_TARGET_BACKLOG, "10")
                .with(Setting.AUTOSCALER_STEP_PERIOD_SECONDS, "2")
                // shortened from 300 s / 60 s so the test sees the scale-in
                .with(Setting.AUTOSCALER_STABILIZATION_SECONDS, "10")
                .with(Setting.AUTOSCALER_COOLDOWN_SECONDS, "5")
                .with(Setting.AUTOSCALER_LOCAL_WORKER_THREADS, "1")
                .with(Setting.AUTOSCALER_LOCAL_LOG_DIR, workerLogs.toString());
        ingest = IngestApi.start(config);
        client = new Farm.Client(ingest.port());
        String jar = System.getProperty("fairpix.jar");
        autoscaler = AutoscalerService.start(config, Path.of(jar), 0);
    }

    @AfterAll
    static void stop() {
        if (autoscaler != null) autoscaler.close(); // SIGTERMs the workers it started and waits
        if (ingest != null) ingest.close();
    }

    @Test
    void floodStartsASecondWorkerWithin30sAndItIsStoppedAfterTheWindowWithEveryJobDoneOnce() throws Exception {
        // The minimum: one worker, started by the autoscaler itself, and an empty queue.
        await("one worker and no lag", Duration.ofSeconds(60), () -> actual() == 1 && lag() == 0);

        // Tenants on distinct partitions: a pool can use at most one replica per partition with lag.
        int partitions = autoscaler.status("gpu").get("signals") instanceof Map<?, ?> s ? ((Number) s.get("partitions")).intValue() : 12;
        List<String> keys = new ArrayList<>();
        floodTenants.clear();
        Set<Integer> used = new HashSet<>();
        while (keys.size() < TENANTS) {
            String id = "it-scale-" + UUID.randomUUID().toString().substring(0, 8);
            if (used.add(com.fairpix.core.kafka.TenantPlacement.home(id, partitions))) {
                keys.add(client.createTenant(id, Map.of()));
                floodTenants.add(id);
            }
        }
        byte[] photo = Files.readAllBytes(Corpus.required("cameratrap-photos/american_black_bear.jpg"));
        String spec = Farm.SPEC.replaceFirst("^\\{", "{\"pool\":\"gpu\",");

        long floodStart = System.nanoTime();
        java.time.Instant floodStartedAt = java.time.Instant.now();
        List<String[]> jobs = Collections.synchronizedList(new ArrayList<>());
        ExecutorService submitters = Executors.newFixedThreadPool(TENANTS);
        List<Future<?>> done = new ArrayList<>();
        for (String key : keys) {
            done.add(submitters.submit(() -> {
                for (int i = 0; i < JOBS_PER_TENANT; i++) {
                    HttpResponse<String> r = client.submitMultipart(key, photo, "bear.jpg", spec);
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                    jobs.add(new String[] {key, Json.mapper().readTree(r.body()).get("id").asText()});
                }
                return null;
            }));
        }
        for (Future<?> f : done) f.get();
        submitters.shutdown();

        double submitSeconds = (System.nanoTime() - floodStart) / 1e9;
        // the deadline counts from the flood's first submission, not from the end of submitting
        Set<String> seenInTop = new HashSet<>();
        await("a second worker process", Duration.ofNanos(Math.max(0, floodStart + Duration.ofSeconds(30).toNanos() - System.nanoTime())), () -> {
            seenInTop.addAll(topTenants());
            return actual() == 2;
        });
        seenInTop.addAll(topTenants());
        assertThat(workerPids()).hasSize(2);
        // the per-tenant view (fairpix top) attributes the backlog to the flooding tenants
        assertThat(seenInTop).as("tenants in topTenants during the flood").containsAnyElementsOf(floodTenants);
        Decision out = autoscaler.decisions("gpu", 200).stream().filter(d -> d.reason() == Reason.SCALE_OUT).reduce((a, b) -> b).orElseThrow();
        double scaleOutSeconds = Duration.between(floodStartedAt, out.at()).toMillis() / 1000.0;
        assertThat(scaleOutSeconds).isLessThanOrEqualTo(30);
        System.out.printf("[AutoscalerIT] %d jobs submitted in %.1f s; second worker started %.1f s after the flood began (lag %d, qps %.1f)%n",
                jobs.size(), submitSeconds, scaleOutSeconds, out.inputs().lag(), out.inputs().qps());

        for (String[] job : jobs) {
            JsonNode j = client.awaitTerminal(job[0], job[1], Duration.ofSeconds(240));
            assertThat(j.get("state").asText()).as("job %s", job[1]).isEqualTo("DONE");
        }
        double drainedSeconds = (System.nanoTime() - floodStart) / 1e9;
        await("lag drained", Duration.ofSeconds(30), () -> lag() == 0);

        long drained = System.nanoTime();
        await("scale-in to one worker", Duration.ofSeconds(60), () -> actual() == 1);
        double scaleInSeconds = (System.nanoTime() - drained) / 1e9;
        System.out.printf("[AutoscalerIT] all DONE %.1f s after the flood began; scaled in %.1f s after the lag drained%n", drainedSeconds, scaleInSeconds);
        assertThat(scaleInSeconds).as("not before the stabilization window").isGreaterThanOrEqualTo(5);

        List<Decision> log = autoscaler.decisions("gpu", 200);
        assertThat(log).anyMatch(d -> d.reason() == Reason.SCALE_OUT && d.desired() == 2);
        assertThat(log).anyMatch(d -> d.reason() == Reason.SCALE_IN && d.desired() == 1);
        assertThat(log.stream().filter(d -> d.reason() == Reason.SCALE_IN).count()).as("one scale-in, no flapping").isEqualTo(1);

        Map<String, Integer> succeeded = succeededEvents(jobs.stream().map(j -> j[1]).collect(java.util.stream.Collectors.toSet()));
        for (String[] job : jobs) assertThat(succeeded.getOrDefault(job[1], 0)).as("job.succeeded events of %s", job[1]).isEqualTo(1);
    }

    static final List<String> floodTenants = new ArrayList<>();

    @SuppressWarnings("unchecked")
    static List<String> topTenants() {
        Object s = autoscaler.status("gpu").get("signals");
        if (!(s instanceof Map<?, ?> m) || !(m.get("topTenants") instanceof List<?> top)) return List.of();
        return ((List<Map<String, Object>>) top).stream().map(t -> (String) t.get("tenant")).toList();
    }

    static int actual() {
        Object a = autoscaler.status("gpu").get("actual");
        return a == null ? -1 : ((Number) a).intValue();
    }

    static long lag() {
        Object s = autoscaler.status("gpu").get("signals");
        if (!(s instanceof Map<?, ?> m) || !Boolean.TRUE.equals(m.get("ok"))) return -1;
        return ((Number) m.get("lag")).longValue();
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> workerPids() {
        return (List<Map<String, Object>>) autoscaler.status("gpu").get("replicas");
    }

    static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what + "; status " + Json.write(autoscaler.status("gpu"))
                        + "\nlast decisions: " + Json.write(autoscaler.decisions("gpu", 10)));
            }
            Thread.sleep(200);
        }
    }

    /** job id → job.succeeded events for it on fairpix.events, read from the log start to the end. */
    static Map<String, Integer> succeededEvents(Set<String> ids) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.get(Setting.KAFKA_BOOTSTRAP));
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Map<String, Integer> counts = new HashMap<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(Topics.EVENTS)) tps.add(new TopicPartition(Topics.EVENTS, info.partition()));
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    JsonNode e = Json.mapper().readTree(r.value());
                    if ("job.succeeded".equals(e.path("type").asText()) && ids.contains(e.path("jobId").asText())) {
                        counts.merge(e.path("jobId").asText(), 1, Integer::sum);
                    }
                }
            }
        }
        return counts;
    }
}
