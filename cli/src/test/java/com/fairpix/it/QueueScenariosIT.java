package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.Corpus;
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
 * The worker's queue promises against the real stack (a new tenant not stuck behind a flood, a running
 * cap per tenant, a job longer than the poll interval, a poison job, reserved threads), with in-process
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
        // These scenarios put each tenant on a partition of its own (tenantOnPartition): every tenant on its
        // home partition. Tenants sharing a partition are IsolationIT's.
        config = Farm.config().with(Setting.WORKER_POOL, "gpu").with(Setting.TENANT_PARTITION_RATE, "0");
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
    void aNewTenantsJobStartsWithinOneRoundOfAFloodingTenantsBacklog() throws Exception {
        String flooder = Farm.tenantOnPartition("it-q1-flood", 0, partitions);
        String newcomer = Farm.tenantOnPartition("it-q1-new", 1, partitions);
        String floodKey = client.createTenant(flooder, Map.of());
        String newKey = client.createTenant(newcomer, Map.of());
        byte[] image = Farm.smallJpeg(320, 240, 1);
        // 300 queued before the newcomer's one: in FIFO order it would start after all of them, here within a round.
        List<String> flood = submit(floodKey, image, 300);
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
        cancel(floodKey, flood); // leave no backlog to the next scenario's worker
    }

    /**
     * The poll loop must not spin while a partition is paused with records still buffered in the
     * Kafka client: kafka-clients 4.4's KIP-848 consumer does not block in poll() then (KAFKA-21084),
     * which cost a third of a 2-core worker. A one-job partition buffer keeps the tenant's partition
     * paused with hundreds of its records fetched; the poll thread's CPU time must stay a small part
     * of the wall time (it was most of it before the loop parked between polls).
     */
    @Test
    void thePollLoopDoesNotSpinWhileAPartitionIsPausedWithRecordsBuffered() throws Exception {
        String tenant = Farm.tenantOnPartition("it-spin", 5, partitions);
        String key = client.createTenant(tenant, Map.of());
        // Enough that the backlog outlasts the measurement at the worker's rate for such small jobs.
        List<String> jobs = submit(key, Farm.smallJpeg(320, 240, 5), 1000);
        // Partitions pause only with the per-partition read-ahead: the tenant read-ahead reads past instead.
        workers.add(Worker.start(config.with(Setting.WORKER_THREADS, "1").with(Setting.WORKER_READ_AHEAD, "partition")
                .with(Setting.WORKER_PARTITION_BUFFER, "2"), -1));
        client.awaitTerminal(key, jobs.getFirst(), Duration.ofSeconds(60));

        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        List<Thread> pollers = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("fairpix-poll")).toList();
        assertThat(pollers).hasSize(1);
        long id = pollers.getFirst().threadId();
        long before = cpu.getThreadCpuTime(id), wallBefore = System.nanoTime();
        Thread.sleep(2_000);
        long used = cpu.getThreadCpuTime(id) - before, wall = System.nanoTime() - wallBefore;

        System.out.printf("[QueueScenariosIT] poll thread: %.3f of a core while the partition was paused%n", (double) used / wall);
        assertThat(client.job(key, jobs.getLast()).get("state").asText()).as("the backlog lasted the whole measurement").isEqualTo("QUEUED");
        assertThat((double) used / wall).as("share of a core the poll thread used while the partition was paused").isLessThan(0.2);
        cancel(key, jobs);
    }

    /** This JVM's threads' nice values by their kernel name (the Java name's first 15 characters), from /proc. */
    static Map<String, List<Integer>> threadNiceValues() throws java.io.IOException {
        Map<String, List<Integer>> out = new java.util.HashMap<>();
        try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
            for (java.nio.file.Path task : tasks.toList()) {
                try {
                    String stat = java.nio.file.Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    int nice = Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]);
                    out.computeIfAbsent(name, k -> new ArrayList<>()).add(nice);
                } catch (java.io.IOException ended) {
                    // the thread ended meanwhile
                }
            }
        }
        return out;
    }

    /**
     * Reserved threads: a quiet tenant submits 1 job/s while another tenant's backlog fills both shared
     * processing threads. Each quiet job must start on the reserved thread as it arrives, not after
     * a flood job ends: with no reserved thread, every one of them waits for a flood job (checked
     * once by hand with {@code worker.reserved-threads=0}: 10 of 10). The flood's jobs take about
     * half a second here (two full-size WebP encodes), the quiet job's Kafka delivery a few ms; so
     * a flood job ending in between by chance is allowed for 2 of the 10.
     */
    @Test
    void aQuietTenantsJobsStartAsTheyArriveWhileAFloodFillsTheSharedThreads() throws Exception {
        String flooder = Farm.tenantOnPartition("it-q11-flood", 3, partitions);
        String quiet = Farm.tenantOnPartition("it-q11-quiet", 4, partitions);
        String floodKey = client.createTenant(flooder, Map.of());
        String quietKey = client.createTenant(quiet, Map.of());
        String heavy = "{\"pool\":\"gpu\",\"variants\":{\"a\":[{\"op\":\"encode\",\"format\":\"webp\",\"quality\":90}],"
                + "\"b\":[{\"op\":\"encode\",\"format\":\"webp\",\"quality\":70}]}}";
        byte[] large = Farm.smallJpeg(1600, 1200, 11);
        List<String> flood = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            HttpResponse<String> r = client.submitRaw(floodKey, large, "image/jpeg", heavy);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            flood.add(Json.mapper().readTree(r.body()).get("id").asText());
        }
        workers.add(Worker.start(config.with(Setting.WORKER_THREADS, "2"), -1)); // + the reserved thread (default 1)
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (running(floodKey, flood) < 2) {
            assertThat(System.nanoTime()).as("the flood fills both shared threads").isLessThan(deadline);
            Thread.sleep(50);
        }
        // The shared threads run at background priority (nice 10 by default, or the JVM's if higher), the reserved one as the poll loop.
        Map<String, List<Integer>> nice = threadNiceValues();
        int base = nice.get("fairpix-poll").getFirst();
        assertThat(nice.get("fairpix-shared-")).as("nice values of the shared processing threads").containsOnly(Math.min(19, Math.max(base, 10))).hasSizeGreaterThanOrEqualTo(2);
        assertThat(nice.get("fairpix-reserve")).as("nice values of the reserved processing threads").containsOnly(base);

        List<String> quietJobs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            quietJobs.addAll(submit(quietKey, Farm.smallJpeg(320, 240, i), 1));
            Thread.sleep(1000);
        }
        List<JsonNode> quietRecords = new ArrayList<>();
        for (String id : quietJobs) quietRecords.add(client.awaitTerminal(quietKey, id, Duration.ofSeconds(60)));
        List<JsonNode> floodRecords = new ArrayList<>();
        for (String id : flood) floodRecords.add(client.job(floodKey, id));
        cancel(floodKey, flood);

        Instant lastQuietStart = quietRecords.stream().map(j -> Instant.parse(j.get("startedAt").asText())).max(Comparator.naturalOrder()).orElseThrow();
        assertThat(floodRecords).as("the flood was still queued when the last quiet job started")
                .anySatisfy(j -> assertThat(!j.hasNonNull("startedAt") || Instant.parse(j.get("startedAt").asText()).isAfter(lastQuietStart)).isTrue());
        int waitedForAFloodJob = 0;
        for (JsonNode q : quietRecords) {
            assertThat(q.get("state").asText()).isEqualTo("DONE");
            Instant queued = Instant.parse(q.get("queuedAt").asText()), started = Instant.parse(q.get("startedAt").asText());
            boolean floodJobEndedMeanwhile = floodRecords.stream().anyMatch(f -> f.hasNonNull("finishedAt")
                    && !Instant.parse(f.get("finishedAt").asText()).isBefore(queued) && !Instant.parse(f.get("finishedAt").asText()).isAfter(started));
            if (floodJobEndedMeanwhile) waitedForAFloodJob++;
        }
        assertThat(waitedForAFloodJob).as("quiet jobs that started only after a flood job ended").isLessThanOrEqualTo(2);
    }

    /**
     * The running cap, with the three tenants on partitions of their own and, the worst case, all on one
     * partition: there the worker holds 16 jobs of each and reads past the rest, and the interleaving
     * depends on catching each tenant up in time.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "one partition for all three: {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void aRunningCapOfTwoHoldsPerTenantAndStartsInterleave(boolean onePartition) throws Exception {
        byte[] image = Farm.smallJpeg(320, 240, 2);
        Map<String, String> keys = new HashMap<>();
        Map<String, List<String>> jobs = new HashMap<>();
        for (int p = 0; p < 3; p++) {
            String t = Farm.tenantOnPartition("it-q2-" + (char) ('a' + p), onePartition ? 0 : p, partitions);
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
    void aJobLongerThanMaxPollIntervalCompletesOnceAndTheGroupStaysStable() throws Exception {
        String t = Farm.tenantId("it-q4");
        String key = client.createTenant(t, Map.of());
        StringBuilder spec = new StringBuilder("{\"pool\":\"gpu\",\"variants\":{");
        for (int i = 0; i < 10; i++) spec.append(i == 0 ? "" : ",").append("\"v").append(i).append("\":[{\"op\":\"encode\",\"format\":\"png\"}]");
        spec.append("}}");
        byte[] photo = Files.readAllBytes(Corpus.required("cameratrap-photos/human.jpg"));
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
    void aPoisonJobSeenByThreeWorkersIsDeadLetteredExactlyOnceAndFailsWithItsReason() throws Exception {
        String t = Farm.tenantId("it-q5");
        String key = client.createTenant(t, Map.of());
        byte[] photo = Files.readAllBytes(Corpus.required("cameratrap-photos/ocelot.jpg"));
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

    private static int running(String key, List<String> ids) throws Exception {
        int n = 0;
        for (String id : ids) if (client.job(key, id).get("state").asText().equals("RUNNING")) n++;
        return n;
    }

    private static void cancel(String key, List<String> ids) throws Exception {
        for (String id : ids) client.send("DELETE", "/v1/jobs/" + id, key);
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
