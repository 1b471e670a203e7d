package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.Topics;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Workers joining and leaving lose no job, with real worker processes: a worker joining and one
 * killed by SIGKILL mid-run; two of six workers stopped by SIGTERM while the others keep
 * serving their partitions. Every job ends DONE once, with exactly one completion event id.
 */
class WorkerScalingIT {
    static final String THUMB = QueueScenariosIT.THUMB;
    static final String THUMB_AND_WEBP = "{\"pool\":\"gpu\",\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":64,\"height\":64,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"jpeg\"}],"
            + "\"w\":[{\"op\":\"encode\",\"format\":\"webp\",\"quality\":70}]}}";
    static FairpixConfig config;
    static IngestApi ingest;
    static Farm.Client client;
    static int partitions;

    @BeforeAll
    static void start() {
        // The SIGTERM test watches each partition through a tenant of its own: every tenant on its home partition only.
        config = Farm.config().with(Setting.WORKER_POOL, "gpu").with(Setting.TENANT_PARTITION_RATE, "0");
        partitions = config.integer(Setting.JOB_PARTITIONS);
        ingest = IngestApi.start(config);
        client = new Farm.Client(ingest.port());
    }

    @AfterAll
    static void stop() {
        if (ingest != null) ingest.close();
    }

    @Test
    void aWorkerJoinsAndAnotherIsKilledMidRunAndAll500JobsAreDoneOnce() throws Exception {
        Map<String, String> keys = tenants("it-q3", 5);
        Map<String, String> jobs = submit(keys, 100, 320, 240); // job id -> tenant

        try (WorkerProcess first = WorkerProcess.start("gpu", 1)) {
            awaitDone(jobs, keys, 50, first);
            try (WorkerProcess second = WorkerProcess.start("gpu", 1)) {
                awaitDone(jobs, keys, 200, first);
                first.kill();
                assertThat(countDone(jobs, keys)).as("killed while jobs were queued").isLessThan(jobs.size());
                for (var e : jobs.entrySet()) {
                    JsonNode job = client.awaitTerminal(keys.get(e.getValue()), e.getKey(), Duration.ofSeconds(180));
                    assertThat(job.get("state").asText()).as("job %s; second worker:%n%s", e.getKey(), second.logTail()).isEqualTo("DONE");
                    assertThat(client.download(keys.get(e.getValue()), job.at("/results/t/url").asText()).statusCode()).isEqualTo(200);
                }
                assertThat(second.terminate(30)).isIn(0, 143);
            }
        }
        assertCompletedOnce(jobs, keys.keySet());
    }

    @Test
    void stoppingTwoOfSixWorkersKeepsTheOtherPartitionsFlowingAndLosesNothing() throws Exception {
        Map<String, String> keys = new HashMap<>();
        Map<Integer, String> tenantOfPartition = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            String t = Farm.tenantOnPartition("it-q6-" + p, p, partitions);
            keys.put(t, client.createTenant(t, Map.of()));
            tenantOfPartition.put(p, t);
        }
        // Each job also encodes a full-size WebP, so the backlog outlasts the workers' joins and the scale-in.
        Map<String, String> jobs = submit(keys, 40, 800, 600, THUMB_AND_WEBP);

        List<Worker> staying = new ArrayList<>();
        List<WorkerProcess> leaving = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) leaving.add(WorkerProcess.start("gpu", 1));
            // Six busy workers before the scale-in: the processes start slower than in-process workers, so
            // they join first; otherwise the scale-in could come before they joined and measure a join and
            // a leave instead (it did once the workers got faster).
            long joined = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!leaving.stream().allMatch(WorkerProcess::wasAssignedPartitions)) {
                assertThat(System.nanoTime()).as("both worker processes own partitions; %s", leaving.get(0).logTail()).isLessThan(joined);
                Thread.sleep(100);
            }
            for (int i = 0; i < 4; i++) staying.add(Worker.start(config.with(Setting.WORKER_THREADS, "1"), -1));
            while (staying.stream().anyMatch(w -> w.partitions().isEmpty())) {
                assertThat(System.nanoTime()).as("every in-process worker owns partitions").isLessThan(joined);
                Thread.sleep(100);
            }
            awaitDone(jobs, keys, jobs.size() / 4, leaving.get(0));
            assertThat(countDone(jobs, keys)).as("jobs left for the scale-in to disturb").isLessThan(jobs.size() * 3 / 4);

            Map<Worker, Set<Integer>> before = new HashMap<>();
            staying.forEach(w -> before.put(w, w.partitions()));
            Instant scaleIn = Instant.now();
            for (WorkerProcess w : leaving) assertThat(w.terminate(60)).as("graceful exit on SIGTERM").isIn(0, 143);

            for (var e : jobs.entrySet()) {
                JsonNode job = client.awaitTerminal(keys.get(e.getValue()), e.getKey(), Duration.ofSeconds(240));
                assertThat(job.get("state").asText()).isEqualTo("DONE");
            }
            // Unmoved: held by a staying worker before the scale-in and never taken from it since.
            Set<Integer> unmoved = new HashSet<>();
            for (Worker w : staying) {
                Map<Integer, Long> revoked = w.lastRevoked();
                for (int p : before.get(w)) {
                    if (revoked.getOrDefault(p, 0L) < scaleIn.toEpochMilli() && w.partitions().contains(p)) unmoved.add(p);
                }
            }
            assertThat(unmoved).as("partitions the staying workers held throughout").isNotEmpty();
            for (int p : unmoved) {
                String t = tenantOfPartition.get(p);
                List<Instant> starts = jobs.entrySet().stream().filter(e -> e.getValue().equals(t))
                        .map(e -> startedAt(keys.get(t), e.getKey())).sorted().toList();
                Duration gap = maxGapAround(starts, scaleIn, Duration.ofSeconds(5));
                assertThat(gap).as("longest pause of unmoved partition %d around the scale-in", p).isLessThanOrEqualTo(Duration.ofSeconds(2));
            }
        } finally {
            staying.forEach(w -> w.stop(Duration.ofSeconds(10)));
            for (WorkerProcess w : leaving) w.close();
        }
        assertCompletedOnce(jobs, keys.keySet());
    }

    /**
     * The longest gap between consecutive starts from the scale-in to {@code window} after it, the
     * gap across the scale-in included. Gaps before it are the workers' joins, not the scale-in's doing.
     */
    private static Duration maxGapAround(List<Instant> starts, Instant at, Duration window) {
        Duration max = Duration.ZERO;
        for (int i = 1; i < starts.size(); i++) {
            Instant a = starts.get(i - 1), b = starts.get(i);
            if (b.isBefore(at) || a.isAfter(at.plus(window))) continue;
            Duration gap = Duration.between(a, b);
            if (gap.compareTo(max) > 0) max = gap;
        }
        return max;
    }

    private static Instant startedAt(String key, String id) {
        try {
            return Instant.parse(client.job(key, id).get("startedAt").asText());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Each job has exactly one distinct job.succeeded event id (events are at-least-once with stable ids). */
    private static void assertCompletedOnce(Map<String, String> jobs, Set<String> tenants) {
        Map<String, Set<String>> ids = new HashMap<>();
        for (JsonNode e : Farm.readTopic(config, Topics.EVENTS, tenants)) {
            if (e.get("type").asText().equals("job.succeeded")) ids.computeIfAbsent(e.get("jobId").asText(), k -> new HashSet<>()).add(e.get("eventId").asText());
        }
        for (String job : jobs.keySet()) assertThat(ids.getOrDefault(job, Set.of())).as("completion events of %s", job).hasSize(1);
    }

    private static Map<String, String> tenants(String prefix, int n) throws Exception {
        Map<String, String> keys = new HashMap<>();
        for (int i = 0; i < n; i++) {
            String t = Farm.tenantId(prefix + i);
            keys.put(t, client.createTenant(t, Map.of()));
        }
        return keys;
    }

    private static Map<String, String> submit(Map<String, String> keys, int perTenant, int width, int height) throws Exception {
        return submit(keys, perTenant, width, height, THUMB);
    }

    private static Map<String, String> submit(Map<String, String> keys, int perTenant, int width, int height, String spec) throws Exception {
        Map<String, String> jobs = new HashMap<>();
        byte[] image = Farm.smallJpeg(width, height, 3);
        for (int i = 0; i < perTenant; i++) {
            for (var t : keys.entrySet()) {
                HttpResponse<String> r = client.submitRaw(t.getValue(), image, "image/jpeg", spec);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                jobs.put(Json.mapper().readTree(r.body()).get("id").asText(), t.getKey());
            }
        }
        return jobs;
    }

    private static void awaitDone(Map<String, String> jobs, Map<String, String> keys, int atLeast, WorkerProcess watched) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        while (countDone(jobs, keys) < atLeast) {
            assertThat(watched.alive()).as("worker died:%n%s", watched.logTail()).isTrue();
            assertThat(System.nanoTime()).as("fewer than %d jobs DONE in time", atLeast).isLessThan(deadline);
            Thread.sleep(500); // each count reads every job: keep this loop from starving the workers

        }
    }

    private static int countDone(Map<String, String> jobs, Map<String, String> keys) throws Exception {
        int done = 0;
        for (var e : jobs.entrySet()) if (client.job(keys.get(e.getValue()), e.getKey()).get("state").asText().equals("DONE")) done++;
        return done;
    }
}
