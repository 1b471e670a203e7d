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
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scenarios Q1, Q2, Q4 and Q5 of shared/scenarios/queue.md against the real stack, with in-process
 * workers of the gpu pool (so no worker of another test class takes the jobs). Jobs are queued
 * before any worker starts, so what is measured is the worker's dispatch order, not upload timing.
 */
class QueueScenariosIT {
    static final String THUMB = "{\"pool\":\"gpu\",\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":64,\"height\":64,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"jpeg\"}]}}";
    static FairpixConfig config;
    static IngestApi ingest;
    static Farm.Client client;
    static int partitions;
    final List<Worker> workers = new ArrayList<>();

    @BeforeAll
    static void start() {
        config = Farm.config().with(Setting.WORKER_POOL, "gpu");
        partitions = config.integer(Setting.JOB_PARTITIONS);
        ingest = IngestApi.start(config);
        client = new Farm.Client(ingest.port());
    }

    @AfterEach
    void stopWorkers() {
        workers.forEach(w -> w.stop(Duration.ofSeconds(10)));
    }

    @AfterAll
    static void stop() {
        if (ingest != null) ingest.close();
    }

    @Test
    void q1_aNewTenantsJobStartsWithinOneRoundOfAFloodingTenantsBacklog() throws Exception {
        String flooder = Farm.tenantOnPartition("it-q1-flood", 0, partitions);
        String newcomer = Farm.tenantOnPartition("it-q1-new", 1, partitions);
        String floodKey = client.createTenant(flooder, Map.of());
        String newKey = client.createTenant(newcomer, Map.of());
        byte[] image = Farm.smallJpeg(320, 240, 1);
        List<String> flood = submit(floodKey, image, 1000);
        String lone = submit(newKey, image, 1).get(0);

        workers.add(Worker.start(config.with(Setting.WORKER_THREADS, "2"), -1));

        JsonNode loneJob = client.awaitTerminal(newKey, lone, Duration.ofSeconds(60));
        Instant loneStart = Instant.parse(loneJob.get("startedAt").asText());
        int floodJobsStartedBefore = 0;
        for (String id : flood) {
            JsonNode job = client.job(floodKey, id);
            if (job.hasNonNull("startedAt") && Instant.parse(job.get("startedAt").asText()).isBefore(loneStart)) floodJobsStartedBefore++;
        }
        // One round is one dispatch per active tenant; the first poll may bring the flood's
        // partition a moment before the newcomer's, so allow the jobs of one poll's worth of threads.
        assertThat(floodJobsStartedBefore).as("flood jobs started before the newcomer's").isLessThanOrEqualTo(6);
    }

    @Test
    void q2_aRunningCapOfTwoHoldsPerTenantAndStartsInterleave() throws Exception {
        byte[] image = Farm.smallJpeg(320, 240, 2);
        Map<String, String> keys = new HashMap<>();
        Map<String, List<String>> jobs = new HashMap<>();
        for (int p = 0; p < 3; p++) {
            String t = Farm.tenantOnPartition("it-q2-" + (char) ('a' + p), p, partitions);
            keys.put(t, client.createTenant(t, Map.of()));
            jobs.put(t, submit(keys.get(t), image, 100));
            // the running cap: lowered after the jobs were admitted (admission also counts queued jobs)
            client.send("PATCH", "/admin/v1/tenants/" + t, "{\"maxConcurrentJobs\":2}");
        }
        Thread.sleep(1000); // the cap change reaches every node within a second

        workers.add(Worker.start(config.with(Setting.WORKER_THREADS, "4"), -1));

        List<Run> runs = new ArrayList<>();
        for (var e : jobs.entrySet()) {
            for (String id : e.getValue()) {
                JsonNode job = client.awaitTerminal(keys.get(e.getKey()), id, Duration.ofSeconds(120));
                assertThat(job.get("state").asText()).isEqualTo("DONE");
                runs.add(new Run(e.getKey(), Instant.parse(job.get("startedAt").asText()), Instant.parse(job.get("finishedAt").asText())));
            }
        }
        for (String t : keys.keySet()) {
            assertThat(maxOverlap(runs.stream().filter(r -> r.tenant.equals(t)).toList())).as("jobs of %s running at once", t).isLessThanOrEqualTo(2);
        }
        // Interleaved, not one tenant's hundred then the next's (what FIFO over the backlog gives):
        // every 30 starts give each tenant at least 5. The first 12 starts are left out — the worker
        // fetches the three partitions one poll after another, and tiny jobs can start twice over
        // before the last partition's first records arrive — and so is the tail, where the tenant
        // that started first runs out of jobs.
        List<String> order = runs.stream().sorted(Comparator.comparing(Run::start)).map(Run::tenant).toList();
        for (int i = 12; i + 30 <= order.size() - 60; i += 30) {
            Map<String, Integer> counts = new HashMap<>();
            order.subList(i, i + 30).forEach(t -> counts.merge(t, 1, Integer::sum));
            assertThat(counts).as("starts %d..%d", i, i + 29).hasSize(3).allSatisfy((t, n) -> assertThat(n).isGreaterThanOrEqualTo(5));
        }
    }

    @Test
    void q4_aJobLongerThanMaxPollIntervalCompletesOnceAndTheGroupStaysStable() throws Exception {
        String t = Farm.tenantId("it-q4");
        String key = client.createTenant(t, Map.of());
        StringBuilder spec = new StringBuilder("{\"pool\":\"gpu\",\"variants\":{");
        for (int i = 0; i < 10; i++) spec.append(i == 0 ? "" : ",").append("\"v").append(i).append("\":[{\"op\":\"encode\",\"format\":\"png\"}]");
        spec.append("}}");
        byte[] photo = Files.readAllBytes(Farm.corpus("cameratrap-photos/human.jpg"));
        HttpResponse<String> r = client.submitMultipart(key, photo, "human.jpg", spec.toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        String id = Json.mapper().readTree(r.body()).get("id").asText();

        workers.add(Worker.start(config.with(Setting.WORKER_MAX_POLL_INTERVAL_MS, "1500").with(Setting.WORKER_THREADS, "1"), -1));
        JsonNode job = client.awaitTerminal(key, id, Duration.ofSeconds(120));
        assertThat(job.get("state").asText()).isEqualTo("DONE");
        Duration took = Duration.between(Instant.parse(job.get("startedAt").asText()), Instant.parse(job.get("finishedAt").asText()));
        assertThat(took).as("the job must outlast max.poll.interval.ms").isGreaterThan(Duration.ofMillis(1500));
        Thread.sleep(3000); // an endless redelivery would show up as more attempts or events by now
        assertThat(client.job(key, id).get("attempts").asInt()).isEqualTo(1);
        List<JsonNode> events = Farm.readTopic(config, Topics.EVENTS, Set.of(t));
        assertThat(events).filteredOn(e -> e.get("type").asText().equals("job.succeeded")).hasSize(1);
        assertThat(workers.get(0).partitions()).as("still a member with partitions").isNotEmpty();
    }

    @Test
    void q5_aPoisonJobSeenByThreeWorkersIsDeadLetteredExactlyOnceAndFailsWithItsReason() throws Exception {
        String t = Farm.tenantId("it-q5");
        String key = client.createTenant(t, Map.of());
        byte[] photo = Files.readAllBytes(Farm.corpus("cameratrap-photos/ocelot.jpg"));
        byte[] truncated = Arrays.copyOf(photo, photo.length * 2 / 3);
        HttpResponse<String> r = client.submitMultipart(key, truncated, "cut.jpg", THUMB);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        String id = Json.mapper().readTree(r.body()).get("id").asText();

        for (int i = 0; i < 3; i++) workers.add(Worker.start(config.with(Setting.WORKER_MAX_ATTEMPTS, "3").with(Setting.WORKER_THREADS, "1"), -1));
        JsonNode job = client.awaitTerminal(key, id, Duration.ofSeconds(60));

        assertThat(job.get("state").asText()).isEqualTo("FAILED");
        assertThat(job.at("/error/reason").asText()).isEqualTo("truncated");
        Thread.sleep(2000);
        List<JsonNode> dead = Farm.readTopic(config, Topics.DLQ, Set.of(t));
        assertThat(dead).filteredOn(m -> m.get("jobId").asText().equals(id)).hasSize(1);
    }

    record Run(String tenant, Instant start, Instant end) {}

    private static int maxOverlap(List<Run> runs) {
        List<long[]> edges = new ArrayList<>();
        for (Run r : runs) {
            edges.add(new long[] {r.start.toEpochMilli() * 1000 + r.start.getNano() / 1000 % 1000, 1});
            edges.add(new long[] {r.end.toEpochMilli() * 1000 + r.end.getNano() / 1000 % 1000, -1});
        }
        // ends before starts at the same instant: back-to-back jobs do not overlap
        edges.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
        int now = 0, max = 0;
        for (long[] e : edges) max = Math.max(max, now += (int) e[1]);
        return max;
    }

    private static List<String> submit(String key, byte[] image, int n) throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            HttpResponse<String> r = client.submitRaw(key, image, "image/jpeg", THUMB);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            ids.add(Json.mapper().readTree(r.body()).get("id").asText());
        }
        return ids;
    }
}
