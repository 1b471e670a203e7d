package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.json.Json;
import com.fairpix.core.redis.Redis;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * Issue 34, "an outage never costs a job an attempt", on the real stack: while one worker holds a
 * backlog of at least {@link #BACKLOG} jobs, the stack's Redis, then its Kafka broker, then S3Proxy
 * are each hung with SIGSTOP (connections stay open, nothing answers) for {@link #hangSeconds}, then
 * resumed with SIGCONT. Every accepted job must end DONE, none FAILED, each with one attempt in its
 * record (none of them has an error of its own).
 *
 * <p>The hang is longer than the worker's timeouts and its old retry schedule: Jedis's 2 s socket
 * timeout times three attempts plus 0.5 + 1 s of back-off (the measured failure: FAILED
 * {@code attempts-exhausted}, "transient: java.net.SocketTimeoutException"), Kafka's 15 s
 * acknowledgement wait, S3's 10 s attempt timeout. {@code -Dfairpix.it.hang-seconds=300} runs the
 * issue's 5-minute hangs.
 *
 * <p>The three hangs share one backlog: the jobs are submitted before the worker starts, so it holds
 * them in its partitions (Kafka), and each hang starts as soon as the previous dependency is seen
 * answering again (a job ends DONE after it), once the worker holds at least {@link #BACKLOG} jobs not
 * done: more are submitted first where it has drained below that.
 */
class DependencyHangIT {
    /** Every hang's length when set ({@code -Dfairpix.it.hang-seconds=300}: the 5 minutes); else each one's own, {@link #hangSeconds}. */
    static final Integer HANG_SECONDS = Integer.getInteger("fairpix.it.hang-seconds");

    /**
     * How long {@code name} is hung: {@link #HANG_SECONDS} when set, else a margin past the longest
     * wait that dependency's hang runs into (what keeps the default run short): Kafka 20 s (its 15 s
     * acknowledgement wait), S3Proxy 15 s (the 10 s attempt timeout), Redis 12 s (2 s socket timeout
     * × 3 attempts + 1.5 s back-off = 7.5 s; a cluster master's 2 s failover too).
     */
    static int hangSeconds(String name) {
        if (HANG_SECONDS != null) return HANG_SECONDS;
        if (name.startsWith("KAFKA")) return 20;
        if (name.startsWith("S3")) return 15;
        return 12;
    }
    static final int BACKLOG = 200;
    /**
     * Jobs submitted before the worker starts: the backlog plus what it finishes before the first hang.
     * Before each hang the backlog is topped up to {@link #BACKLOG} (a fixed count alone left 190 at the
     * third hang of a full run: the worker drains ~30 jobs after each resume, more on a quiet machine).
     */
    static final int JOBS = Integer.getInteger("fairpix.it.hang-jobs", 300);

    /** The stack's processes, in the order they are hung, with what their command line must hold. */
    enum Hung {
        REDIS("redis", "redis-server"), KAFKA("kafka", "kafka.Kafka"), S3PROXY("s3proxy", "org.gaul.s3proxy.Main");

        final String pidFile;
        final String marker;

        Hung(String pidFile, String marker) {
            this.pidFile = pidFile;
            this.marker = marker;
        }

        /** The process of this stack's service, from the pid file of this checkout's stack (never another's). */
        ProcessHandle process() throws Exception {
            Path root = Path.of(System.getProperty("fairpix.root", "."));
            String stateDir = System.getenv().getOrDefault("FAIRPIX_STATE_DIR", root.resolve(".fairpix").toString());
            Path file = Path.of(stateDir, "run", pidFile + ".pid");
            assertThat(file).as("the stack's %s PID file", pidFile).exists();
            long pid = Long.parseLong(Files.readString(file).trim());
            ProcessHandle p = ProcessHandle.of(pid).orElseThrow(() -> new AssertionError(pidFile + " " + pid + " is not running"));
            // As scripts/stack checks it: /proc's command line (redis-server renames itself there).
            String cmdline = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ');
            assertThat(cmdline).as("process %d is the stack's %s", pid, pidFile).contains(marker);
            return p;
        }
    }

    @Test
    void redisKafkaAndS3EachHungWhileTheWorkerHoldsABacklogFailNoJobAndSpendNoAttempt() throws Exception {
        FairpixConfig config = Farm.config().with(Setting.WORKER_POOL, "gpu").with(Setting.WORKER_THREADS, "2")
                .with(Setting.WORKER_MAX_ATTEMPTS, "3");
        org.junit.jupiter.api.Assumptions.assumeFalse(config.get(Setting.REDIS_URL).startsWith("redis-cluster://"),
                "the stack's single Redis is hung: run against it, not a cluster");
        Map<String, ProcessHandle> processes = new java.util.LinkedHashMap<>();
        for (Hung h : Hung.values()) processes.put(h.name(), h.process());
        hangEachInTurn(config, processes, JOBS);
    }

    /**
     * Issue 34 on a Redis Cluster (run with {@code FAIRPIX_REDIS_URL=$(scripts/redis-cluster url)}):
     * the master serving the tenant's slot is hung with SIGSTOP for {@link #hangSeconds} while the
     * worker holds the backlog (its replica takes over after the 2 s node timeout; the old master
     * rejoins as a replica on SIGCONT). Every job DONE with one attempt.
     */
    @Test
    void aRedisClusterMasterHungWhileTheWorkerHoldsABacklogFailsNoJobAndSpendsNoAttempt() throws Exception {
        FairpixConfig config = Farm.config().with(Setting.WORKER_POOL, "gpu").with(Setting.WORKER_THREADS, "2")
                .with(Setting.WORKER_MAX_ATTEMPTS, "3");
        String url = config.get(Setting.REDIS_URL);
        org.junit.jupiter.api.Assumptions.assumeTrue(url.startsWith("redis-cluster://"), "needs FAIRPIX_REDIS_URL of scripts/redis-cluster");
        hangEachInTurn(config, null, BACKLOG + 20);
    }

    /** The port of the live master serving {@code key}'s slot, from CLUSTER NODES asked of the first seed that answers. */
    static int masterOf(String url, String key) {
        int slot = redis.clients.jedis.util.JedisClusterCRC16.getSlot(key);
        for (String seed : url.substring("redis-cluster://".length()).split(",")) {
            try (redis.clients.jedis.Jedis j = new redis.clients.jedis.Jedis(redis.clients.jedis.HostAndPort.from(seed))) {
                for (String line : j.clusterNodes().split("\n")) {
                    String[] f = line.trim().split(" ");
                    if (f.length < 9 || !f[2].contains("master") || f[2].contains("fail")) continue;
                    for (int i = 8; i < f.length; i++) {
                        if (f[i].startsWith("[")) continue;
                        String[] range = f[i].split("-");
                        int from = Integer.parseInt(range[0]);
                        int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
                        if (slot >= from && slot <= to) return Integer.parseInt(f[1].split("[:@]")[1]);
                    }
                }
            } catch (RuntimeException e) {
                // that seed does not answer: ask the next
            }
        }
        throw new AssertionError("no live master serves slot " + slot);
    }

    /** The process of this checkout's cluster node on {@code port} (scripts/redis-cluster's pid file). */
    static ProcessHandle clusterNode(int port) throws Exception {
        Path root = Path.of(System.getProperty("fairpix.root", "."));
        String stateDir = System.getenv().getOrDefault("FAIRPIX_STATE_DIR", root.resolve(".fairpix").toString());
        Path file = Path.of(stateDir, "redis-cluster", Integer.toString(port), "pid");
        assertThat(file).as("the cluster node's PID file").exists();
        long pid = Long.parseLong(Files.readString(file).trim());
        String cmdline = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ');
        assertThat(cmdline).as("process %d is the cluster's node on %d", pid, port).contains("redis-server").contains(Integer.toString(port));
        return ProcessHandle.of(pid).orElseThrow();
    }

    /**
     * Submits {@code jobs}, starts the worker, then hangs each of {@code processes} in turn (null: the
     * Redis Cluster master of the tenant's slot, found once the tenant exists) and checks every job.
     */
    private static void hangEachInTurn(FairpixConfig config, Map<String, ProcessHandle> given, int jobs) throws Exception {
        Map<String, ProcessHandle> processes = given;
        long t0 = System.nanoTime();
        Worker worker = null;
        UnifiedJedis redis = Redis.connect(config.get(Setting.REDIS_URL));
        JobStore records = JobStore.redis(redis, 3600);
        try (IngestApi ingest = IngestApi.start(config)) {
            Farm.Client client = new Farm.Client(ingest.port());
            String tenant = Farm.tenantId("it-hang");
            String key = client.createTenant(tenant, Map.of());
            if (processes == null) {
                int port = masterOf(config.get(Setting.REDIS_URL), com.fairpix.core.redis.RedisKeys.tenant(tenant));
                processes = Map.of("REDIS_CLUSTER_MASTER_" + port, clusterNode(port));
            }
            List<String> ids = new ArrayList<>(submit(client, key, jobs));
            System.out.printf("[DependencyHangIT] %d jobs accepted in %.1f s%n", ids.size(), (System.nanoTime() - t0) / 1e9);

            worker = Worker.start(config, -1);
            Map<JobState, Integer> states = awaitDoneAtLeast(records, tenant, 1, Duration.ofSeconds(60));
            for (String h : processes.keySet()) {
                int open = topUp(client, key, ids, records, tenant);
                System.out.printf("[DependencyHangIT] %.1f s: %s hung for %d s with %d jobs not yet done%n", (System.nanoTime() - t0) / 1e9, h, hangSeconds(h), open);
                assertThat(open).as("the backlog the worker holds as %s hangs", h).isGreaterThanOrEqualTo(BACKLOG);
                hang(processes.get(h), processes.values(), hangSeconds(h));
                states = count(records, tenant);
                assertThat(states.getOrDefault(JobState.FAILED, 0)).as("jobs FAILED by the %s hang: %s", h, failures(records, tenant)).isZero();
                int doneBefore = states.getOrDefault(JobState.DONE, 0);
                states = awaitDoneAtLeast(records, tenant, doneBefore + 1, Duration.ofSeconds(60));
                System.out.printf("[DependencyHangIT] %.1f s: work goes on after %s (%s)%n", (System.nanoTime() - t0) / 1e9, h, states);
            }
            for (String id : ids) client.awaitTerminal(key, id, Duration.ofSeconds(120));
            List<String> wrong = new ArrayList<>();
            Map<Integer, Integer> attempts = new HashMap<>();
            for (JobRecord r : all(records, tenant)) {
                attempts.merge(r.attempts(), 1, Integer::sum);
                if (r.state() != JobState.DONE || r.attempts() != 1) wrong.add(r.id() + " " + r.state() + " attempts " + r.attempts() + " " + r.error());
            }
            System.out.printf("[DependencyHangIT] %.1f s: all %d jobs ended; attempts per job: %s%n", (System.nanoTime() - t0) / 1e9, ids.size(), attempts);
            assertThat(wrong).as("jobs not DONE with one attempt").isEmpty();
        } finally {
            if (processes != null) for (ProcessHandle p : processes.values()) signal(p, "CONT");
            if (worker != null) worker.stop(Duration.ofSeconds(10));
            redis.close();
        }
    }

    /**
     * Submits more jobs until the tenant has at least {@link #BACKLOG} not done (the worker takes them
     * into its partitions as they come); returns how many are not done.
     */
    private static int topUp(Farm.Client client, String key, List<String> ids, JobStore records, String tenant) throws Exception {
        while (true) {
            Map<JobState, Integer> states = count(records, tenant);
            int open = ids.size() - states.getOrDefault(JobState.DONE, 0) - states.getOrDefault(JobState.FAILED, 0);
            if (open >= BACKLOG) return open;
            // A margin for what the worker finishes while these are sent.
            int more = BACKLOG - open + 20;
            ids.addAll(submit(client, key, more));
            System.out.printf("[DependencyHangIT] %d jobs not done, below %d: %d more submitted%n", open, BACKLOG, more);
        }
    }

    /** SIGSTOP for the hang, then SIGCONT; every process is resumed, whatever happens. */
    private static void hang(ProcessHandle p, Iterable<ProcessHandle> all, int seconds) throws Exception {
        try {
            signal(p, "STOP");
            Thread.sleep(seconds * 1000L);
        } finally {
            for (ProcessHandle each : all) signal(each, "CONT");
        }
    }

    private static void signal(ProcessHandle p, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).redirectErrorStream(true).start();
        assertThat(kill.waitFor()).as("kill -%s %d: %s", signal, p.pid(), new String(kill.getInputStream().readAllBytes())).isZero();
    }

    /** Submits {@code n} small photos' jobs from 4 connections; every one must be accepted. */
    private static List<String> submit(Farm.Client client, String key, int n) throws Exception {
        byte[] image = Farm.smallJpeg(1280, 960, 34);
        List<String> ids = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> sent = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                int share = n / 4 + (c < n % 4 ? 1 : 0);
                sent.add(pool.submit(() -> {
                    for (int i = 0; i < share; i++) {
                        HttpResponse<String> r = client.submitRaw(key, image, "image/jpeg", QueueScenariosIT.THUMB);
                        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                        ids.add(Json.mapper().readTree(r.body()).get("id").asText());
                    }
                    return null;
                }));
            }
            for (Future<?> f : sent) f.get();
        } finally {
            pool.shutdownNow();
        }
        return List.copyOf(ids);
    }

    private static Map<JobState, Integer> awaitDoneAtLeast(JobStore records, String tenant, int done, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Map<JobState, Integer> states = count(records, tenant);
            if (states.getOrDefault(JobState.DONE, 0) >= done) return states;
            assertThat(System.nanoTime()).as("%d jobs DONE within %s (now %s)", done, timeout, states).isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    private static Map<JobState, Integer> count(JobStore records, String tenant) {
        Map<JobState, Integer> states = new EnumMap<>(JobState.class);
        for (JobRecord r : all(records, tenant)) states.merge(r.state(), 1, Integer::sum);
        return states;
    }

    private static List<String> failures(JobStore records, String tenant) {
        List<String> failed = new ArrayList<>();
        for (JobRecord r : all(records, tenant)) if (r.state() == JobState.FAILED) failed.add(r.id() + ": " + r.error());
        return failed;
    }

    /** The tenant's records, read from Redis in pages (the test's own reads, not the tenant API's). */
    static List<JobRecord> all(JobStore records, String tenant) {
        List<JobRecord> out = new ArrayList<>();
        String cursor = null;
        do {
            JobStore.Page page = records.list(tenant, cursor, 100, 16L << 20);
            out.addAll(page.jobs());
            cursor = page.nextCursor();
        } while (cursor != null);
        return out;
    }
}
