package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.TenantPlacement;
import com.fairpix.core.kafka.Topics;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.ingest.IngestApi;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * Issue 34's soak ({@code scripts/soak}, done-when 3): several tenants submit real photos at mixed
 * rates for {@code fairpix.soak.seconds} (600) while faults are injected one after another, in an
 * order drawn at random: SIGKILL of a worker process (a new one is started), SIGKILL of a Kafka
 * broker (restarted later), SIGSTOP of a broker, of S3Proxy, of the Redis master serving a tenant
 * (or the single Redis), SIGKILL of such a master (restarted as a replica), a restart of the
 * ingest. At least {@code fairpix.soak.min-faults} (10) faults of at least 4 kinds. Then the faults
 * stop, the workers drain, and the invariants are checked: every answer a 202 or a 503 with
 * Retry-After; every 202 DONE (none FAILED, none lost) with exactly one completion event id on
 * {@code fairpix.events}. The fault log and the counts are printed whether the invariants hold or not.
 *
 * <p>Not in the default runs (cli/pom.xml excludes it): {@code scripts/soak} runs it with
 * {@code -Dit.test=SoakIT}, on the stack with a 3-broker Kafka cluster and a Redis Cluster.
 */
class SoakIT {
    static final int SECONDS = Integer.getInteger("fairpix.soak.seconds", 600);
    static final int MIN_FAULTS = Integer.getInteger("fairpix.soak.min-faults", 10);
    /** How long a stopped or killed dependency stays away: the issue's 30-60 s, kept to 30-45 so that 10 faults fit 10 minutes. */
    static final int HOLD_MIN = Integer.getInteger("fairpix.soak.hold-min", 30);
    static final int HOLD_MAX = Integer.getInteger("fairpix.soak.hold-max", 45);
    static final int DRAIN_SECONDS = Integer.getInteger("fairpix.soak.drain-seconds", 600);
    static final long SEED = Long.getLong("fairpix.soak.seed", System.currentTimeMillis());
    /** Submissions per second of each tenant: mixed, ~2 jobs/s in all, which two 2-thread workers on 2 shared cores keep up with between faults. */
    static final double[] RATES = {1.0, 0.5, 0.25, 0.25};
    /** One small thumbnail per job, on the gpu pool (only this test's worker processes consume it). */
    static final String SPEC = "{\"pool\":\"gpu\",\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":128,\"height\":128,\"fit\":\"cover\"},"
            + "{\"op\":\"encode\",\"format\":\"webp\",\"quality\":75}]}}";

    enum Kind { WORKER_KILL, BROKER_KILL, BROKER_STOP, S3_STOP, REDIS_STOP, REDIS_MASTER_KILL, INGEST_RESTART }

    record Fault(double atSeconds, Kind kind, String target, double seconds, String note) {}

    record Answer(String tenant, long startNanos, long endNanos, int status, String retryAfter, String id, String body) {}

    private final long t0 = System.nanoTime();
    private final Random random = new Random(SEED);
    private final List<Fault> faults = new CopyOnWriteArrayList<>();
    private final List<long[]> ingestRestarts = new CopyOnWriteArrayList<>();
    private final List<WorkerProcess> workers = new CopyOnWriteArrayList<>();
    private final List<WorkerProcess> allWorkers = new CopyOnWriteArrayList<>();
    private final Path root = Path.of(System.getProperty("fairpix.root", ".")).toAbsolutePath().normalize();
    private FairpixConfig config;
    private boolean kafkaCluster;
    private boolean redisCluster;

    /**
     * The shipped ramp (10 % of requests after the last breaker closes, ×1.2 every 30 s: 6.5 min to
     * full) would refuse most of a 10-minute soak's submissions, each fault starting it again; 5 s steps
     * keep the ramp in play (~65 s after each closing) while most jobs are accepted and run through the faults.
     */
    static final String RAMP_STEP_MS = System.getProperty("fairpix.soak.ramp-step-ms", "5000");

    @Test
    void tenFaultsOfFourKindsLoseNoAcceptedJobFailNoneAndRunNoneTwice() throws Exception {
        config = Farm.config().with(Setting.RAMP_STEP_MS, RAMP_STEP_MS);
        String bootstrap = config.get(Setting.KAFKA_BOOTSTRAP);
        String redisUrl = config.get(Setting.REDIS_URL);
        redisCluster = redisUrl.startsWith("redis-cluster://");
        try (Admin admin = KafkaLeaderLossIT.admin(bootstrap)) {
            kafkaCluster = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size() >= 3;
        }
        List<Kind> kinds = new ArrayList<>(List.of(Kind.values()));
        if (!kafkaCluster) kinds.remove(Kind.BROKER_KILL); // the single broker is scripts/stack's: nothing here restarts it
        if (!redisCluster) kinds.remove(Kind.REDIS_MASTER_KILL); // likewise the single Redis, and it keeps no data
        log("seed %d; %d s of load; Kafka %s; Redis %s; fault kinds %s", SEED, SECONDS, kafkaCluster ? "3-broker cluster" : "single broker",
                redisCluster ? "Cluster" : "single", kinds);

        List<Path> photos;
        try (Stream<Path> s = Files.list(root.resolve("samples"))) {
            photos = s.filter(p -> p.toString().endsWith(".jpg")).sorted().toList();
        }
        assertThat(photos).as("photos in samples/").isNotEmpty();
        List<byte[]> images = new ArrayList<>();
        for (Path p : photos) images.add(Files.readAllBytes(p));

        AtomicReference<IngestApi> ingest = new AtomicReference<>(IngestApi.start(config));
        UnifiedJedis redis = Redis.connect(redisUrl);
        JobStore records = JobStore.redis(redis, 3600);
        List<Answer> answers = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean submitting = new AtomicBoolean(true);
        List<Thread> load = new ArrayList<>();
        Map<String, String> keys = new TreeMap<>();
        try {
            Farm.Client admin = new Farm.Client(ingest.get().port());
            for (int i = 0; i < RATES.length; i++) keys.put(Farm.tenantId("soak" + i), null);
            for (String t : List.copyOf(keys.keySet())) keys.put(t, admin.createTenant(t, Map.of()));
            for (int w = 0; w < 2; w++) startWorker();

            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            String query = "/v1/jobs?spec=" + URLEncoder.encode(SPEC, StandardCharsets.UTF_8);
            int i = 0;
            for (Map.Entry<String, String> tenant : keys.entrySet()) {
                double rate = RATES[i++];
                long seed = SEED + i;
                load.add(Thread.ofPlatform().name("soak-" + tenant.getKey()).start(() -> {
                    Random r = new Random(seed);
                    long next = System.nanoTime();
                    while (submitting.get()) {
                        byte[] photo = images.get(r.nextInt(images.size()));
                        long start = System.nanoTime();
                        try {
                            URI uri = URI.create("http://127.0.0.1:" + ingest.get().port() + query);
                            // Raw HTTP: a 503 during a fault is an answer to count, not a contract break to stop at. 60 s:
                            // past the ingest's longest bounded wait (S3's 30 s call timeout on the original, during an S3
                            // hang; a 30 s client timeout raced it in the first soak), so "no answer" is a real one.
                            HttpResponse<String> resp = http.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + tenant.getValue())
                                    .header("Content-Type", "image/jpeg").timeout(Duration.ofSeconds(60))
                                    .POST(HttpRequest.BodyPublishers.ofByteArray(photo)).build(), HttpResponse.BodyHandlers.ofString());
                            String id = resp.statusCode() == 202 ? Json.mapper().readTree(resp.body()).get("id").asText() : null;
                            answers.add(new Answer(tenant.getKey(), start, System.nanoTime(), resp.statusCode(),
                                    resp.headers().firstValue("Retry-After").orElse(null), id, id == null ? resp.body() : null));
                        } catch (Exception e) {
                            answers.add(new Answer(tenant.getKey(), start, System.nanoTime(), -1, null, null, e.toString()));
                        }
                        // Poisson arrivals at the tenant's rate; a slow answer delays the next, as a client's would.
                        next += (long) (-Math.log(1 - r.nextDouble()) / rate * 1e9);
                        long wait = next - System.nanoTime();
                        if (wait > 0) {
                            try {
                                Thread.sleep(wait / 1_000_000);
                            } catch (InterruptedException e) {
                                return;
                            }
                        } else {
                            next = System.nanoTime();
                        }
                    }
                }));
            }

            // Faults: 30 s of load first, then one after another in shuffled rounds of every kind (each kind
            // early on), each followed by a settle (replicas back in sync) and a pause, until the time is up
            // and at least MIN_FAULTS have run.
            Thread.sleep(30_000);
            List<Kind> round = new ArrayList<>();
            while (elapsed() < SECONDS || faults.size() < MIN_FAULTS) {
                if (round.isEmpty()) {
                    round.addAll(kinds);
                    Collections.shuffle(round, random);
                }
                Kind kind = round.removeFirst();
                inject(kind, keys.keySet(), ingest);
                Fault f = faults.getLast();
                log("fault %d: %s %s, %.1f s%s", faults.size(), f.kind(), f.target(), f.seconds(), f.note().isEmpty() ? "" : " (" + f.note() + ")");
                double settle = settle();
                if (settle > 0.5) log("settled in %.1f s", settle);
                Thread.sleep(10_000 + random.nextInt(10_000));
            }
            submitting.set(false);
            for (Thread t : load) t.join(60_000);
            log("load stopped; draining");

            // Drain: every accepted job terminal (or the drain time out).
            List<Answer> all = new ArrayList<>(answers);
            Set<String> accepted = new HashSet<>();
            for (Answer a : all) if (a.id() != null) accepted.add(a.id());
            Map<String, JobRecord> byId = new HashMap<>();
            long drainDeadline = System.nanoTime() + DRAIN_SECONDS * 1_000_000_000L;
            while (true) {
                byId.clear();
                try {
                    for (String t : keys.keySet()) for (JobRecord r : all(records, t)) byId.put(r.id(), r);
                } catch (RuntimeException e) {
                    log("records not readable (%s); again", e);
                    Thread.sleep(2000);
                    continue;
                }
                long open = accepted.stream().filter(id -> byId.get(id) == null || !byId.get(id).state().terminal()).count();
                if (open == 0 || System.nanoTime() > drainDeadline) break;
                Thread.sleep(2000);
            }
            log("drained at %.0f s", elapsed());
            report(all, accepted, byId, keys.keySet());
        } finally {
            submitting.set(false);
            for (Thread t : load) t.join(60_000);
            for (WorkerProcess w : allWorkers) w.terminate(20);
            ingest.get().close();
            redis.close();
        }
    }

    /** Runs one fault of {@code kind}, waits for it to be over (resumed, restarted), and logs it. */
    private void inject(Kind kind, Set<String> tenants, AtomicReference<IngestApi> ingest) throws Exception {
        double at = elapsed();
        int hold = HOLD_MIN + random.nextInt(HOLD_MAX - HOLD_MIN + 1);
        String tenant = List.copyOf(tenants).get(random.nextInt(tenants.size()));
        String target;
        String note = "";
        switch (kind) {
            case WORKER_KILL -> {
                WorkerProcess victim = workers.get(random.nextInt(workers.size()));
                workers.remove(victim);
                victim.kill();
                WorkerProcess fresh = startWorker();
                target = "worker pid " + victim.pid();
                note = "new worker pid " + fresh.pid();
            }
            case BROKER_KILL -> {
                int node = brokerOf(tenant);
                RedisClusterFailoverIT.run("bash", root.resolve("scripts/kafka-cluster").toString(), "kill", Integer.toString(node));
                Thread.sleep(hold * 1000L);
                RedisClusterFailoverIT.run("bash", root.resolve("scripts/kafka-cluster").toString(), "restart", Integer.toString(node));
                target = "Kafka node " + node + " (leader of " + tenant + "'s job partition)";
                note = "SIGKILL, restarted after " + hold + " s";
            }
            case BROKER_STOP -> {
                if (kafkaCluster) {
                    int node = brokerOf(tenant);
                    target = "Kafka node " + node + " (leader of " + tenant + "'s job partition)";
                    stopFor(kafkaNode(node), hold);
                } else {
                    target = "the Kafka broker";
                    stopFor(DependencyHangIT.Hung.KAFKA.process(), hold);
                }
            }
            case S3_STOP -> {
                target = "S3Proxy";
                stopFor(DependencyHangIT.Hung.S3PROXY.process(), hold);
            }
            case REDIS_STOP -> {
                if (redisCluster) {
                    int port = DependencyHangIT.masterOf(config.get(Setting.REDIS_URL), RedisKeys.tenant(tenant));
                    target = "Redis master :" + port + " (" + tenant + "'s slot)";
                    stopFor(DependencyHangIT.clusterNode(port), hold);
                } else {
                    target = "the Redis";
                    stopFor(DependencyHangIT.Hung.REDIS.process(), hold);
                }
            }
            case REDIS_MASTER_KILL -> {
                int port = DependencyHangIT.masterOf(config.get(Setting.REDIS_URL), RedisKeys.tenant(tenant));
                ProcessHandle p = DependencyHangIT.clusterNode(port);
                signal(p, "KILL");
                p.onExit().get(10, TimeUnit.SECONDS);
                Thread.sleep(hold * 1000L);
                RedisClusterFailoverIT.run("bash", root.resolve("scripts/redis-cluster").toString(), "restart", Integer.toString(port));
                target = "Redis master :" + port + " (" + tenant + "'s slot)";
                note = "SIGKILL, restarted after " + hold + " s (rejoins as a replica)";
            }
            case INGEST_RESTART -> {
                // As behind a load balancer: the new node first, then the old one closed; a request the old
                // one was still serving may see its connection closed (counted apart, in this window only).
                long from = System.nanoTime();
                IngestApi old = ingest.get();
                int oldPort = old.port();
                ingest.set(IngestApi.start(config));
                Thread.sleep(1000);
                old.close();
                ingestRestarts.add(new long[] {from, System.nanoTime()});
                target = "ingest :" + oldPort + " -> :" + ingest.get().port();
            }
            default -> throw new IllegalStateException(kind.toString());
        }
        faults.add(new Fault(at, kind, target, elapsed() - at, note));
    }

    /** SIGSTOP for {@code seconds}, then SIGCONT whatever happens. */
    private static void stopFor(ProcessHandle p, int seconds) throws Exception {
        try {
            signal(p, "STOP");
            Thread.sleep(seconds * 1000L);
        } finally {
            signal(p, "CONT");
        }
    }

    private static void signal(ProcessHandle p, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).redirectErrorStream(true).start();
        assertThat(kill.waitFor()).as("kill -%s %d: %s", signal, p.pid(), new String(kill.getInputStream().readAllBytes())).isZero();
    }

    private WorkerProcess startWorker() throws Exception {
        WorkerProcess w = WorkerProcess.start("gpu", 2);
        workers.add(w);
        allWorkers.add(w);
        return w;
    }

    /** The node leading {@code tenant}'s job partition (any live node where that cannot be read). */
    private int brokerOf(String tenant) throws Exception {
        try (Admin admin = KafkaLeaderLossIT.admin(config.get(Setting.KAFKA_BOOTSTRAP))) {
            Map<Integer, Integer> leaders = KafkaLeaderLossIT.leaders(admin, Topics.jobs("gpu"));
            int leader = leaders.get(TenantPlacement.home(tenant, leaders.size()));
            return leader > 0 ? leader : 1 + random.nextInt(3);
        }
    }

    /** This checkout's Kafka cluster node {@code n} (scripts/kafka-cluster's pid file), checked to be a broker. */
    private static ProcessHandle kafkaNode(int n) throws Exception {
        String stateDir = System.getenv().getOrDefault("FAIRPIX_STATE_DIR", Path.of(System.getProperty("fairpix.root", ".")).resolve(".fairpix").toString());
        Path file = Path.of(stateDir, "kafka-cluster", "node-" + n, "pid");
        long pid = Long.parseLong(Files.readString(file).trim());
        String cmdline = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ');
        assertThat(cmdline).as("process %d is the cluster's node %d", pid, n).contains("kafka.Kafka");
        return ProcessHandle.of(pid).orElseThrow();
    }

    /**
     * Waits (up to 90 s) until the clusters are whole again: every replica of the job and event topics
     * in sync, every Redis master with a live replica. Faults come one at a time, as the redundancy
     * allows (one copy lost at a time); the soak is not a test of two losses at once. Returns seconds waited.
     */
    private double settle() throws Exception {
        long from = System.nanoTime();
        long deadline = from + 90_000_000_000L;
        while (System.nanoTime() < deadline && !(kafkaInSync() && redisWhole())) Thread.sleep(500);
        if (System.nanoTime() >= deadline) log("not settled after 90 s (kafka in sync %s, redis whole %s); going on", kafkaInSync(), redisWhole());
        return (System.nanoTime() - from) / 1e9;
    }

    private boolean kafkaInSync() {
        if (!kafkaCluster) return true;
        try (Admin admin = KafkaLeaderLossIT.admin(config.get(Setting.KAFKA_BOOTSTRAP))) {
            for (var d : admin.describeTopics(List.of(Topics.jobs("gpu"), Topics.EVENTS)).allTopicNames().get(10, TimeUnit.SECONDS).values()) {
                for (TopicPartitionInfo p : d.partitions()) if (p.isr().size() < p.replicas().size()) return false;
            }
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    private boolean redisWhole() {
        if (!redisCluster) return true;
        for (String seed : config.get(Setting.REDIS_URL).substring("redis-cluster://".length()).split(",")) {
            try (redis.clients.jedis.Jedis j = new redis.clients.jedis.Jedis(redis.clients.jedis.HostAndPort.from(seed))) {
                int masters = 0;
                int replicas = 0;
                for (String line : j.clusterNodes().split("\n")) {
                    String[] f = line.trim().split(" ");
                    if (f.length < 8 || f[2].contains("fail") || !f[7].equals("connected")) continue;
                    if (f[2].contains("master") && f.length > 8) masters++;
                    if (f[2].contains("slave")) replicas++;
                }
                return masters == 3 && replicas == 3 && j.clusterInfo().contains("cluster_state:ok");
            } catch (RuntimeException e) {
                // that node does not answer: ask the next
            }
        }
        return false;
    }

    /** Prints the fault log and the counts, then fails on any broken invariant. */
    private void report(List<Answer> all, Set<String> accepted, Map<String, JobRecord> byId, Set<String> tenants) {
        Map<Integer, Integer> byStatus = new TreeMap<>();
        for (Answer a : all) byStatus.merge(a.status(), 1, Integer::sum);
        Map<String, Integer> refusals = new TreeMap<>();
        for (Answer a : all) if (a.status() != 202) refusals.merge(a.status() + " " + reason(a.body()), 1, Integer::sum);
        List<String> violations = new ArrayList<>();
        int restartDrops = 0;
        for (Answer a : all) {
            if (a.status() == 202 || (a.status() == 503 && a.retryAfter() != null)) continue;
            boolean duringRestart = a.status() == -1 && ingestRestarts.stream().anyMatch(w -> a.startNanos() <= w[1] && a.endNanos() >= w[0]);
            if (duringRestart) restartDrops++;
            else violations.add(String.format("answer %d at %.1f s (%s): %s", a.status(), (a.startNanos() - t0) / 1e9, a.tenant(), a.body()));
        }
        Map<JobState, Integer> states = new EnumMap<>(JobState.class);
        Map<Integer, Integer> attempts = new TreeMap<>();
        int lost = 0;
        for (String id : accepted) {
            JobRecord r = byId.get(id);
            if (r == null) {
                lost++;
                violations.add("accepted job " + id + " has no record (lost)");
                continue;
            }
            states.merge(r.state(), 1, Integer::sum);
            attempts.merge(r.attempts(), 1, Integer::sum);
            if (r.state() != JobState.DONE) violations.add("accepted job " + id + " " + r.state() + " attempts " + r.attempts() + " " + r.error());
        }
        Map<String, Set<String>> eventIds = new HashMap<>();
        int doneEvents = 0;
        for (JsonNode e : Farm.readTopic(config, Topics.EVENTS, tenants)) {
            if (!"DONE".equals(e.path("state").asText())) continue;
            doneEvents++;
            eventIds.computeIfAbsent(e.get("jobId").asText(), k -> new HashSet<>()).add(e.get("eventId").asText());
        }
        int duplicates = 0;
        int missingEvents = 0;
        for (String id : accepted) {
            int n = eventIds.getOrDefault(id, Set.of()).size();
            if (n == 0) {
                missingEvents++;
                violations.add("accepted job " + id + ": no completion event");
            } else if (n > 1) {
                duplicates++;
                violations.add("accepted job " + id + " done twice: completion event ids " + eventIds.get(id));
            }
        }
        Map<String, String> perTenant = new TreeMap<>();
        for (String t : tenants) {
            long sent = all.stream().filter(a -> a.tenant().equals(t)).count();
            long ok = all.stream().filter(a -> a.tenant().equals(t) && a.id() != null).count();
            long done = all.stream().filter(a -> a.tenant().equals(t) && a.id() != null && byId.get(a.id()) != null && byId.get(a.id()).state() == JobState.DONE).count();
            perTenant.put(t, sent + " sent, " + ok + " accepted, " + done + " DONE");
            if (done == 0) violations.add("tenant " + t + " starved: no job DONE");
        }
        Map<Kind, Integer> kindCounts = new EnumMap<>(Kind.class);
        for (Fault f : faults) kindCounts.merge(f.kind(), 1, Integer::sum);

        StringBuilder out = new StringBuilder("\n[SoakIT] ===== fault log (seed " + SEED + ", " + Instant.now() + ") =====\n");
        out.append(String.format("%-3s %8s  %-18s %8s  %s%n", "#", "at (s)", "kind", "lasted", "target"));
        int n = 0;
        for (Fault f : faults) {
            out.append(String.format("%-3d %8.1f  %-18s %7.1fs  %s%s%n", ++n, f.atSeconds(), f.kind(), f.seconds(), f.target(), f.note().isEmpty() ? "" : "; " + f.note()));
        }
        out.append(String.format("[SoakIT] faults: %d of %d kinds %s%n", faults.size(), kindCounts.size(), kindCounts));
        out.append(String.format("[SoakIT] submitted %d; answers by status %s (-1: no answer); accepted %d; dropped by an ingest restart %d%n",
                all.size(), byStatus, accepted.size(), restartDrops));
        out.append(String.format("[SoakIT] refusals by status and reason %s%n", refusals));
        List<Answer> slow = all.stream().filter(a -> a.endNanos() - a.startNanos() > 5_000_000_000L)
                .sorted((x, y) -> Long.compare(y.endNanos() - y.startNanos(), x.endNanos() - x.startNanos())).toList();
        out.append(String.format("[SoakIT] answers slower than 5 s: %d; slowest %s%n", slow.size(), slow.stream().limit(6)
                .map(a -> String.format("%d after %.1f s at %.0f s", a.status(), (a.endNanos() - a.startNanos()) / 1e9, (a.startNanos() - t0) / 1e9)).toList()));
        out.append(String.format("[SoakIT] accepted jobs by state %s; lost %d; DONE %d, FAILED %d%n", states, lost,
                states.getOrDefault(JobState.DONE, 0), states.getOrDefault(JobState.FAILED, 0)));
        out.append(String.format("[SoakIT] completion events %d (records) for %d jobs; jobs with none %d; done twice (2+ event ids) %d%n",
                doneEvents, eventIds.keySet().stream().filter(accepted::contains).count(), missingEvents, duplicates));
        out.append(String.format("[SoakIT] attempts per job %s%n", attempts));
        perTenant.forEach((t, s) -> out.append("[SoakIT] tenant ").append(t).append(": ").append(s).append('\n'));
        out.append(String.format("[SoakIT] workers started %d; violations %d%n", allWorkers.size(), violations.size()));
        violations.stream().limit(30).forEach(v -> out.append("[SoakIT]   ").append(v).append('\n'));
        System.out.print(out);

        assertThat(faults).as("faults injected").hasSizeGreaterThanOrEqualTo(MIN_FAULTS);
        assertThat(kindCounts.size()).as("fault kinds").isGreaterThanOrEqualTo(Math.min(4, Kind.values().length));
        assertThat(accepted).as("accepted jobs").isNotEmpty();
        assertThat(violations).as("broken invariants").isEmpty();
    }

    /** A refusal's reason: the problem's {@code reason} (overloaded) or {@code dependency} (backend-unavailable), else its title. */
    private static String reason(String body) {
        try {
            JsonNode problem = Json.mapper().readTree(body);
            for (String member : List.of("reason", "dependency")) if (problem.hasNonNull(member)) return member + "=" + problem.get(member).asText();
            return problem.path("title").asText("?");
        } catch (Exception e) {
            return body == null ? "?" : body.substring(0, Math.min(60, body.length()));
        }
    }

    private double elapsed() {
        return (System.nanoTime() - t0) / 1e9;
    }

    private void log(String format, Object... args) {
        System.out.printf("[SoakIT] %6.1f s: %s%n", elapsed(), String.format(format, args));
    }

    private static List<JobRecord> all(JobStore records, String tenant) {
        return DependencyHangIT.all(records, tenant);
    }
}
