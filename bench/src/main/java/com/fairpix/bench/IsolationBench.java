package com.fairpix.bench;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.TenantPlacement;
import com.fairpix.core.kafka.Topics;
import com.fairpix.core.storage.S3ObjectStore;
import com.fairpix.core.storage.StorageKeys;
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
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Isolation benchmark against the real stack (scripts/bench-isolation, issue 14): an ingest-api in
 * this JVM and ONE worker with default settings in its own JVM ({@link BenchWorker}), real corpus
 * photos, the demo's two variants. Per mode, each with a fresh worker process and fresh tenants:
 *
 * <ul>
 *   <li>{@code today}: {@code worker.read-ahead=partition}, {@code kafka.tenant-partition-rate=0}
 *       (every tenant on its murmur2 home partition; a partition whose buffer is full is paused);</li>
 *   <li>{@code isolated}: the defaults (per-tenant read-ahead, tenant placement over a run of
 *       partitions).</li>
 * </ul>
 *
 * Two quiet tenants with the default limits submit 1 job/s each: A on the noisy tenant's home
 * partition, B on another. Phase 1: the quiet tenants alone for W s. Phase 2: a noisy tenant (rate
 * 10,000/s, far above the farm's throughput) submits as fast as admission allows from a few client
 * threads, starting a few seconds before the quiet tenants' W s and stopping when they end. Per
 * quiet tenant: p50/p99 of createdAt → finishedAt from the job records (the ingest accepted the
 * upload → the worker finished), alone and under the flood; a job not DONE by the end of its phase
 * plus a grace period counts as unfinished and is reported. The worker's heap, RSS and read-ahead
 * gauges are sampled every second.
 */
public final class IsolationBench {
    static final String SPEC = FairnessBench.SPEC;

    /** A mode: the two settings it sets (null = the default). */
    record Mode(String name, String readAhead, String partitionRate) {}

    static final Map<String, Mode> MODES = Map.of(
            "today", new Mode("today", "partition", "0"),
            "isolated", new Mode("isolated", null, null));

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<byte[]> photos;
    private final int windowSeconds;
    private final int graceSeconds;
    private final int leadSeconds;
    private final int floodThreads;
    private final int floodCap;
    private final String adminToken = "bench-" + UUID.randomUUID();
    private final Map<String, String> keyTenant = new ConcurrentHashMap<>();
    private String base;

    IsolationBench(List<byte[]> photos, int windowSeconds, int graceSeconds, int leadSeconds, int floodThreads, int floodCap) {
        this.photos = photos;
        this.windowSeconds = windowSeconds;
        this.graceSeconds = graceSeconds;
        this.leadSeconds = leadSeconds;
        this.floodThreads = floodThreads;
        this.floodCap = floodCap;
    }

    public static void main(String[] args) throws Exception {
        int window = 60, grace = 60, lead = 5, threads = 4, cap = 20_000;
        List<String> modes = List.of("today", "isolated");
        Path corpus = Path.of("../shared/corpus");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--window" -> window = Integer.parseInt(args[++i]);
                case "--grace" -> grace = Integer.parseInt(args[++i]);
                case "--lead" -> lead = Integer.parseInt(args[++i]);
                case "--flood-threads" -> threads = Integer.parseInt(args[++i]);
                case "--flood-cap" -> cap = Integer.parseInt(args[++i]);
                case "--modes" -> modes = List.of(args[++i].split(","));
                case "--corpus" -> corpus = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + " (--window S, --grace S, --lead S, --flood-threads N, --flood-cap N, --modes today,isolated, --corpus DIR)");
            }
        }
        for (String m : modes) if (!MODES.containsKey(m)) throw new IllegalArgumentException("unknown mode " + m + " (today, isolated)");
        List<byte[]> photos = new ArrayList<>();
        for (String suite : List.of("cameratrap-photos", "exif-orientation")) {
            try (Stream<Path> s = Files.list(corpus.resolve(suite))) {
                for (Path p : s.filter(p -> p.toString().endsWith(".jpg")).sorted().toList()) photos.add(Files.readAllBytes(p));
            }
        }
        if (photos.isEmpty()) throw new IllegalStateException("no photos under " + corpus);
        IsolationBench bench = new IsolationBench(photos, window, grace, lead, threads, cap);
        List<ModeResult> results = new ArrayList<>();
        for (String m : modes) results.add(bench.run(MODES.get(m)));
        print(results, window, grace, lead, threads, cap);
        System.exit(0);
    }

    // ---------------------------------------------------------------- results

    /** One job as submitted: its id (null when the POST was refused), the HTTP status, and the POST's round trip, seconds. */
    record Sent(String key, String id, int status, double postSeconds) {}

    /**
     * Latencies of one quiet tenant in one phase, seconds (createdAt → finishedAt of DONE jobs), and
     * the jobs that were accepted but not DONE by the deadline. Percentiles count the unfinished jobs
     * as longer than any finished one, so they cannot hide: a rank that falls on one is shown as
     * "> bound", bound being the least time any unfinished job had been waiting at the deadline.
     */
    record Latencies(int submitted, Map<Integer, Integer> refused, List<Double> done, Map<String, Integer> unfinished, double unfinishedAtLeast,
                     List<Double> post) {
        int unfinishedCount() {
            return unfinished.values().stream().mapToInt(Integer::intValue).sum();
        }

        /** Nearest rank over done + unfinished; +infinity when the rank is an unfinished job. */
        double p(double q) {
            int n = done.size() + unfinishedCount();
            if (n == 0) return Double.NaN;
            int rank = Math.max(1, (int) Math.ceil(q * n));
            return rank <= done.size() ? done.get(rank - 1) : Double.POSITIVE_INFINITY;
        }

        /** Nearest rank of the accepted jobs' POST round trips (upload → 202), seconds. */
        double postP(double q) {
            return post.isEmpty() ? Double.NaN : post.get(Math.max(1, (int) Math.ceil(q * post.size())) - 1);
        }

        String show(double q) {
            double v = p(q);
            if (Double.isNaN(v)) return "n/a";
            return Double.isInfinite(v) ? String.format(Locale.ROOT, ">%.0fs", unfinishedAtLeast) : String.format(Locale.ROOT, "%.3fs", v);
        }
    }

    record TenantResult(String label, String tenant, int home, Latencies alone, Latencies flood) {}

    /** One sample of the worker: heap used (bytes), RSS (bytes), read-ahead records and bytes, jobs completed. */
    record Sample(long nanos, double heap, double rss, double raRecords, double raBytes, double completed) {}

    record ModeResult(Mode mode, int partitions, String noisy, int noisyHome, int noisyWidth, List<TenantResult> quiet,
                      Sample before, Sample floodMax, double floodSeconds, int floodAccepted, Map<String, Integer> floodRefused,
                      double workerJobsPerSecond, int cancelled, List<String> load, List<String> notes) {}

    // ---------------------------------------------------------------- one mode

    ModeResult run(Mode mode) throws Exception {
        System.err.printf("[bench] mode %s: warm-up, quiet alone (%d s), flood (%d s lead + %d s) + up to %d s grace%n",
                mode.name(), windowSeconds, leadSeconds, windowSeconds, graceSeconds);
        List<String> notes = new ArrayList<>();
        List<String> load = new ArrayList<>();
        // The previous mode's flood leaves work behind (S3 deletes, Kafka, GC): let the machine settle first,
        // or this mode's "alone" phase is measured on a busy machine.
        notes.add(settle(Duration.ofSeconds(120)));
        load.add("start " + loadAverage());
        Map<String, String> env = new HashMap<>(System.getenv());
        // The worker runs with default settings but for the mode's two: drop any override from the caller's environment.
        List<String> dropped = new ArrayList<>();
        env.keySet().removeIf(k -> {
            boolean drop = k.startsWith("FAIRPIX_WORKER_") || k.equals(Setting.TENANT_PARTITION_RATE.env());
            if (drop) dropped.add(k);
            return drop;
        });
        if (!dropped.isEmpty()) System.err.println("[bench] ignoring from the environment (the bench runs the defaults): " + dropped);
        env.put(Setting.ADMIN_TOKEN.env(), adminToken);
        env.put(Setting.INGEST_PORT.env(), "0");
        if (mode.readAhead() != null) env.put(Setting.WORKER_READ_AHEAD.env(), mode.readAhead());
        if (mode.partitionRate() != null) env.put(Setting.TENANT_PARTITION_RATE.env(), mode.partitionRate());
        FairpixConfig config = FairpixConfig.load(env, Map.of());
        String bootstrap = config.get(Setting.KAFKA_BOOTSTRAP);
        String pool = config.get(Setting.WORKER_POOL);
        String topic = Topics.jobs(pool), group = Topics.workerGroup(pool);
        IngestApi ingest = IngestApi.start(config);
        base = "http://127.0.0.1:" + ingest.port();
        Process worker = null;
        List<Sent> everything = Collections.synchronizedList(new ArrayList<>());
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions().size();
            if (partitions != config.integer(Setting.JOB_PARTITIONS)) {
                notes.add("topic " + topic + " has " + partitions + " partitions (kafka.job-partitions says " + config.integer(Setting.JOB_PARTITIONS) + "); homes use " + partitions);
            }
            worker = startWorker(env, "isolation-" + mode.name());
            int workerPort = workerPort(mode);
            long pid = worker.pid();
            notes.add(awaitAssignment(admin, group, topic, partitions, pid));
            long lag0 = lag(admin, group, topic);
            long lag = awaitLag(admin, group, topic, Duration.ofSeconds(120));
            if (lag0 > 0) notes.add("stale consumer lag at start: " + lag0 + " records, " + lag + " after waiting for it to drain");

            String run = UUID.randomUUID().toString().substring(0, 6);
            String noisy = "noisy-" + run;
            int home = TenantPlacement.home(noisy, partitions);
            int width = new TenantPlacement(config.decimal(Setting.TENANT_PARTITION_RATE)).width(10_000, partitions);
            String quietA = onPartition("qa-" + run + "-", home, partitions);
            String quietB = onPartition("qb-" + run + "-", (home + partitions / 2) % partitions, partitions);
            String noisyKey = createTenant(noisy, Map.of("rate", 10_000, "burst", 100_000, "maxConcurrentJobs", 100_000, "dailyQuota", 10_000_000));
            // Rate and burst above what 1 photo/s costs (up to ~32 tokens for the largest), still one partition wide.
            Map<String, Object> quietLimits = Map.of("rate", 40, "burst", 80);
            String keyA = createTenant(quietA, quietLimits);
            String keyB = createTenant(quietB, quietLimits);
            System.err.printf("[bench] %s: noisy %s (home p%d, width %d of %d), quiet A %s (p%d), quiet B %s (p%d); worker pid %d, port %d%n",
                    mode.name(), noisy, home, width, partitions, quietA, home, quietB, TenantPlacement.home(quietB, partitions), pid, workerPort);

            // Warm-up (JIT, OpenCV, connections): a third tenant, 3 jobs/s for 10 s, until they are done.
            String warmKey = createTenant(onPartition("warm-" + run + "-", (home + 1) % partitions, partitions), Map.of());
            List<Sent> warm = submitAtRate(warmKey, 3.0, Duration.ofSeconds(10));
            everything.addAll(warm);
            latencies(warm, System.nanoTime() + TimeUnit.SECONDS.toNanos(60));

            List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
            sampler.scheduleAtFixedRate(() -> {
                Sample s = sample(workerPort, pid);
                if (s != null) samples.add(s);
            }, 0, 1, TimeUnit.SECONDS);

            load.add("phase 1 " + loadAverage());
            // Phase 1: the quiet tenants alone.
            System.err.printf("[bench] %s: phase 1, quiet tenants alone%n", mode.name());
            List<List<Sent>> alone = submitQuiet(List.of(keyA, keyB), Duration.ofSeconds(windowSeconds));
            alone.forEach(everything::addAll);
            long aloneDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(graceSeconds);
            Latencies aloneA = latencies(alone.get(0), aloneDeadline), aloneB = latencies(alone.get(1), aloneDeadline);

            // Phase 2: the same under the flood.
            System.err.printf("[bench] %s: phase 2, under the flood%n", mode.name());
            load.add("phase 2 " + loadAverage());
            Sample before = samples.isEmpty() ? null : samples.getLast();
            long floodStart = System.nanoTime();
            AtomicBoolean stop = new AtomicBoolean();
            ConcurrentLinkedQueue<Sent> flood = new ConcurrentLinkedQueue<>();
            Map<String, Integer> refused = new ConcurrentHashMap<>();
            AtomicInteger attempts = new AtomicInteger();
            List<Thread> flooders = new ArrayList<>();
            for (int t = 0; t < floodThreads; t++) {
                int seed = t;
                flooders.add(Thread.ofPlatform().name("flood-" + t).start(() -> flood(noisyKey, seed, stop, attempts, flood, refused)));
            }
            Thread.sleep(TimeUnit.SECONDS.toMillis(leadSeconds)); // the flood's backlog builds first
            List<List<Sent>> underFlood = submitQuiet(List.of(keyA, keyB), Duration.ofSeconds(windowSeconds));
            stop.set(true);
            for (Thread t : flooders) t.join();
            double floodSeconds = (System.nanoTime() - floodStart) / 1e9;
            underFlood.forEach(everything::addAll);
            everything.addAll(flood);
            Sample atFloodEnd = samples.isEmpty() ? null : samples.getLast();
            load.add("flood end " + loadAverage());
            long floodDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(graceSeconds);
            Latencies floodA = latencies(underFlood.get(0), floodDeadline), floodB = latencies(underFlood.get(1), floodDeadline);
            notes.add(assignmentNote(admin, group, partitions, pid, "at the end of the flood"));
            sampler.shutdownNow();
            List<Sample> during;
            synchronized (samples) {
                during = samples.stream().filter(s -> s.nanos() >= floodStart).toList();
            }
            Sample max = during.isEmpty() ? null : new Sample(0, during.stream().mapToDouble(Sample::heap).max().orElse(Double.NaN),
                    during.stream().mapToDouble(Sample::rss).max().orElse(Double.NaN), during.stream().mapToDouble(Sample::raRecords).max().orElse(Double.NaN),
                    during.stream().mapToDouble(Sample::raBytes).max().orElse(Double.NaN), Double.NaN);
            double jobsPerSecond = before == null || atFloodEnd == null ? Double.NaN
                    : (atFloodEnd.completed() - before.completed()) / ((atFloodEnd.nanos() - before.nanos()) / 1e9);

            // Clean up for the next mode: cancel whatever is still queued, let the worker skip it, stop it.
            int cancelled = cancelOutstanding(everything);
            long left = awaitLag(admin, group, topic, Duration.ofSeconds(120));
            System.err.printf("[bench] %s: cancelled %d queued jobs; consumer lag %d%n", mode.name(), cancelled, left);
            if (left > 0) notes.add("consumer lag still " + left + " records 120 s after cancelling the backlog");
            List<TenantResult> quiet = List.of(
                    new TenantResult("A, same partition", quietA, home, aloneA, floodA),
                    new TenantResult("B, other partition", quietB, TenantPlacement.home(quietB, partitions), aloneB, floodB));
            return new ModeResult(mode, partitions, noisy, home, width, quiet, before, max, floodSeconds, flood.size(), new TreeMap<>(refused),
                    jobsPerSecond, cancelled, load, notes);
        } finally {
            sampler.shutdownNow();
            if (worker != null) {
                worker.destroy(); // SIGTERM: the worker stops gracefully
                if (!worker.waitFor(30, TimeUnit.SECONDS)) worker.destroyForcibly();
            }
            ingest.close();
            purge(config);
        }
    }

    /** One flooding client thread: submits back to back until {@code stop} or the cap on uploads. */
    void flood(String key, int seed, AtomicBoolean stop, AtomicInteger attempts, ConcurrentLinkedQueue<Sent> out, Map<String, Integer> refused) {
        Random random = new Random(seed);
        while (!stop.get() && attempts.incrementAndGet() <= floodCap) {
            Sent s = submit(key, photos.get(random.nextInt(photos.size())));
            if (s.id() != null) {
                out.add(s);
            } else {
                refused.merge(s.status() == 0 ? "error" : Integer.toString(s.status()), 1, Integer::sum);
                FairnessBench.sleep(s.status() == 0 ? 100 : 20);
            }
        }
    }

    /** Each key submits 1 job/s for {@code duration}, all at once (one list per key). */
    List<List<Sent>> submitQuiet(List<String> keys, Duration duration) throws InterruptedException {
        List<List<Sent>> out = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (String key : keys) {
            List<Sent> sent = Collections.synchronizedList(new ArrayList<>());
            out.add(sent);
            threads.add(Thread.ofPlatform().start(() -> sent.addAll(submitAtRate(key, 1.0, duration))));
        }
        for (Thread t : threads) t.join();
        return out;
    }

    /** Submits at {@code perSecond} for {@code duration}; a slow upload does not delay the next one. */
    List<Sent> submitAtRate(String key, double perSecond, Duration duration) {
        List<Sent> out = Collections.synchronizedList(new ArrayList<>());
        long start = System.nanoTime(), until = start + duration.toNanos();
        long interval = (long) (1e9 / perSecond);
        Random random = new Random(key.hashCode());
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            for (long next = start; next < until; next += interval) {
                long wait = next - System.nanoTime();
                if (wait > 0) FairnessBench.sleep(TimeUnit.NANOSECONDS.toMillis(wait));
                byte[] photo = photos.get(random.nextInt(photos.size()));
                pool.submit(() -> out.add(submit(key, photo)));
            }
        }
        return out;
    }

    /** Waits for the jobs to end (until {@code deadline}, System.nanoTime) and measures createdAt → finishedAt. */
    Latencies latencies(List<Sent> sent, long deadline) {
        Map<Integer, Integer> refused = new TreeMap<>();
        List<Double> done = new ArrayList<>();
        Map<String, Integer> unfinished = new TreeMap<>();
        double atLeast = Double.POSITIVE_INFINITY;
        int submitted = 0;
        List<Double> post = new ArrayList<>();
        for (Sent s : sent) {
            if (s.id() == null) {
                refused.merge(s.status(), 1, Integer::sum);
                continue;
            }
            submitted++;
            post.add(s.postSeconds());
            JsonNode job = get(s.key(), "/v1/jobs/" + s.id());
            while (!FairnessBench.terminal(job) && System.nanoTime() < deadline) {
                FairnessBench.sleep(200);
                job = get(s.key(), "/v1/jobs/" + s.id());
            }
            if ("DONE".equals(job.path("state").asText()) && job.hasNonNull("createdAt") && job.hasNonNull("finishedAt")) {
                done.add(Duration.between(Instant.parse(job.get("createdAt").asText()), Instant.parse(job.get("finishedAt").asText())).toNanos() / 1e9);
            } else {
                unfinished.merge(job.path("state").asText("unknown"), 1, Integer::sum);
                if (job.hasNonNull("createdAt")) {
                    atLeast = Math.min(atLeast, Duration.between(Instant.parse(job.get("createdAt").asText()), Instant.now()).toNanos() / 1e9);
                }
            }
        }
        Collections.sort(done);
        Collections.sort(post);
        return new Latencies(submitted, refused, done, unfinished, Double.isInfinite(atLeast) ? graceSeconds : atLeast, post);
    }

    /** Cancels every job still QUEUED (DELETE /v1/jobs/{id}); returns how many were cancelled. */
    int cancelOutstanding(List<Sent> jobs) throws InterruptedException {
        AtomicInteger cancelled = new AtomicInteger();
        List<Sent> ids;
        synchronized (jobs) {
            ids = jobs.stream().filter(s -> s.id() != null).toList();
        }
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            for (Sent s : ids) {
                pool.submit(() -> {
                    try {
                        HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/jobs/" + s.id()))
                                .header("Authorization", "Bearer " + s.key()).DELETE().build(), HttpResponse.BodyHandlers.discarding());
                        if (r.statusCode() == 200) cancelled.incrementAndGet();
                    } catch (Exception ignored) {
                        // already finished, or the farm is going away
                    }
                });
            }
        }
        return cancelled.get();
    }

    // ---------------------------------------------------------------- the worker

    /** The worker under test in its own JVM, serving /metrics on a free port; its log goes to bench/target. */
    static Process startWorker(Map<String, String> env, String name) throws Exception {
        return FairnessBench.startWorker(env, name, List.of("--port", "0"));
    }

    static Path workerLog(String name) {
        return FairnessBench.workerLog(name);
    }

    static int workerPort(Mode mode) throws Exception {
        var m = java.util.regex.Pattern.compile("bench worker ready, HTTP port (\\d+)").matcher(Files.readString(workerLog("isolation-" + mode.name())));
        if (!m.find()) throw new IllegalStateException("the worker's ready line names no HTTP port");
        return Integer.parseInt(m.group(1));
    }

    /** Scrapes the worker's /metrics and /proc/PID/status; null when either fails. */
    Sample sample(int port, long pid) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
            double heap = 0, records = Double.NaN, bytes = Double.NaN, completed = 0;
            for (String line : r.body().split("\n")) {
                if (line.startsWith("#") || line.isBlank()) continue;
                int sp = line.lastIndexOf(' ');
                double v = Double.parseDouble(line.substring(sp + 1));
                if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) heap += v;
                else if (line.startsWith("fairpix_worker_read_ahead_records{") || line.startsWith("fairpix_worker_read_ahead_records ")) records = v;
                else if (line.startsWith("fairpix_worker_read_ahead_bytes{") || line.startsWith("fairpix_worker_read_ahead_bytes ")) bytes = v;
                else if (line.startsWith("fairpix_jobs_completed_total")) completed += v;
            }
            double rss = Double.NaN;
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) rss = Double.parseDouble(line.replaceAll("[^0-9]", "")) * 1024;
            }
            return new Sample(System.nanoTime(), heap, rss, records, bytes, completed);
        } catch (Exception e) {
            return null;
        }
    }

    /** Waits until the worker (client id ending in its pid) owns every partition of the topic; says what it saw. */
    static String awaitAssignment(Admin admin, String group, String topic, int partitions, long pid) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String note = "";
        while (System.nanoTime() < until) {
            note = assignmentNote(admin, group, partitions, pid, "at the start");
            if (note.startsWith("OK")) return note;
            FairnessBench.sleep(500);
        }
        System.err.println("[bench] WARNING: " + note);
        return "WARNING: " + note;
    }

    static String assignmentNote(Admin admin, String group, int partitions, long pid, String when) {
        try {
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get(10, TimeUnit.SECONDS);
            int mine = 0;
            List<String> others = new ArrayList<>();
            for (MemberDescription m : d.members()) {
                int n = m.assignment().topicPartitions().size();
                if (m.clientId().endsWith("-" + pid)) mine += n;
                else others.add(m.clientId() + " (" + n + " partitions)");
            }
            String s = String.format("%s the bench worker owned %d of %d partitions of group %s", when, mine, partitions, group);
            if (!others.isEmpty()) return "WARNING: " + s + "; other members: " + others;
            return (mine == partitions ? "OK: " : "") + s;
        } catch (Exception e) {
            return "could not describe group " + group + ": " + e;
        }
    }

    /** Records of the topic the group has not committed (log end − committed, or − log start where none). */
    static long lag(Admin admin, String group, String topic) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
        int n = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic).partitions().size();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>(), earliest = new HashMap<>();
        for (int i = 0; i < n; i++) {
            latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
            earliest.put(new TopicPartition(topic, i), OffsetSpec.earliest());
        }
        var end = admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
        var start = admin.listOffsets(earliest).all().get(10, TimeUnit.SECONDS);
        long lag = 0;
        for (var e : end.entrySet()) {
            OffsetAndMetadata c = committed.get(e.getKey());
            long from = c == null ? start.get(e.getKey()).offset() : c.offset();
            lag += Math.max(0, e.getValue().offset() - from);
        }
        return lag;
    }

    /** Waits (at most {@code max}) for the group's lag to reach 0; returns the last lag read. */
    static long awaitLag(Admin admin, String group, String topic, Duration max) throws Exception {
        long until = System.nanoTime() + max.toNanos();
        long lag = lag(admin, group, topic);
        while (lag > 0 && System.nanoTime() < until) {
            FairnessBench.sleep(1000);
            lag = lag(admin, group, topic);
        }
        return lag;
    }

    // ---------------------------------------------------------------- HTTP

    String createTenant(String id, Map<String, Object> limits) throws Exception {
        Map<String, Object> body = new HashMap<>(limits);
        body.put("id", id);
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/admin/v1/tenants"))
                .header("Authorization", "Bearer " + adminToken).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(body))).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) throw new IllegalStateException("create tenant " + id + ": " + r.statusCode() + " " + r.body());
        String key = Json.mapper().readTree(r.body()).get("apiKey").asText();
        keyTenant.put(key, id);
        return key;
    }

    Sent submit(String key, byte[] photo) {
        long t0 = System.nanoTime();
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/jobs?spec=" + URLEncoder.encode(SPEC, StandardCharsets.UTF_8)))
                    .header("Authorization", "Bearer " + key).header("Content-Type", "image/jpeg")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(photo)).build(), HttpResponse.BodyHandlers.ofString());
            String id = r.statusCode() == 202 ? Json.mapper().readTree(r.body()).get("id").asText() : null;
            return new Sent(key, id, r.statusCode(), (System.nanoTime() - t0) / 1e9);
        } catch (Exception e) {
            return new Sent(key, null, 0, (System.nanoTime() - t0) / 1e9);
        }
    }

    JsonNode get(String key, String path) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + key).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return Json.mapper().readTree(r.body());
        } catch (Exception e) {
            return Json.mapper().createObjectNode();
        }
    }

    /** Deletes this mode's uploads and results, as FairnessBench does: a flood stores gigabytes of photos. */
    void purge(FairpixConfig config) {
        try (S3ObjectStore s3 = new S3ObjectStore(config.get(Setting.S3_ENDPOINT), config.get(Setting.S3_REGION),
                config.get(Setting.S3_ACCESS_KEY), config.get(Setting.S3_SECRET_KEY), config.get(Setting.S3_BUCKET))) {
            int deleted = 0;
            for (String tenant : keyTenant.values()) deleted += s3.deletePrefix(StorageKeys.tenantPrefix(tenant));
            System.err.printf("[bench] deleted %d objects of %d bench tenants%n", deleted, keyTenant.size());
            keyTenant.clear();
        } catch (RuntimeException e) {
            System.err.println("[bench] could not delete the run's objects: " + e);
        }
    }

    /** Waits until the 1-minute load average is under 1 (at most {@code max}); says how long it took. */
    static String settle(Duration max) throws InterruptedException {
        long start = System.nanoTime();
        while (System.nanoTime() - start < max.toNanos()) {
            try {
                if (Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]) < 1.0) break;
            } catch (java.io.IOException | NumberFormatException e) {
                break;
            }
            Thread.sleep(2_000);
        }
        return String.format(Locale.ROOT, "settled %.0f s before the mode (1-min load average %s)", (System.nanoTime() - start) / 1e9, loadAverage());
    }

    /** The 1, 5 and 15 minute load averages: the machine is shared, and a busy neighbour shows here. */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "n/a";
        }
    }

    /** A tenant id {@code prefix + i} whose murmur2 home partition is {@code partition}. */
    static String onPartition(String prefix, int partition, int partitions) {
        for (int i = 0; ; i++) {
            String id = prefix + i;
            if (TenantPlacement.home(id, partitions) == partition) return id;
        }
    }

    // ---------------------------------------------------------------- report

    static String ratio(Latencies alone, Latencies flood) {
        double a = alone.p(0.99), f = flood.p(0.99);
        if (Double.isNaN(a) || Double.isNaN(f) || Double.isInfinite(a)) return "n/a";
        if (Double.isInfinite(f)) return String.format(Locale.ROOT, ">%.0f", flood.unfinishedAtLeast() / a);
        return String.format(Locale.ROOT, "%.2f", f / a);
    }

    static String mib(double bytes) {
        return Double.isNaN(bytes) ? "n/a" : String.format(Locale.ROOT, "%.0f MiB", bytes / (1024 * 1024));
    }

    static void print(List<ModeResult> results, int window, int grace, int lead, int threads, int cap) {
        System.out.println();
        System.out.printf("Isolation: quiet tenants at 1 job/s, %d s alone, then %d s under a flood (createdAt -> finishedAt of their job records)%n", window, window);
        System.out.printf("%-9s %-30s %4s %22s %22s %9s %16s%n", "mode", "quiet tenant", "home", "alone p50 / p99", "flood p50 / p99", "p99 ratio", "unfinished a/f");
        for (ModeResult r : results) {
            for (TenantResult t : r.quiet()) {
                System.out.printf(Locale.ROOT, "%-9s %-30s %4s %22s %22s %9s %16s%n", r.mode().name(), t.label() + " " + t.tenant(), "p" + t.home(),
                        t.alone().show(0.50) + " / " + t.alone().show(0.99), t.flood().show(0.50) + " / " + t.flood().show(0.99),
                        ratio(t.alone(), t.flood()),
                        t.alone().unfinishedCount() + "/" + t.alone().submitted() + "  " + t.flood().unfinishedCount() + "/" + t.flood().submitted());
            }
        }
        System.out.println();
        for (ModeResult r : results) {
            String m = r.mode().name();
            System.out.printf(Locale.ROOT, "%s: read-ahead=%s, tenant-partition-rate=%s; noisy %s on p%d, width %d of %d partitions%n", m,
                    r.mode().readAhead() == null ? "tenant (default)" : r.mode().readAhead(),
                    r.mode().partitionRate() == null ? "default" : r.mode().partitionRate(), r.noisy(), r.noisyHome(), r.noisyWidth(), r.partitions());
            System.out.printf(Locale.ROOT, "%s: flood %d jobs accepted in %.0f s (%.1f/s), refused %s; worker completed %.1f jobs/s during it; %d queued jobs cancelled after%n", m,
                    r.floodAccepted(), r.floodSeconds(), r.floodAccepted() / r.floodSeconds(), r.floodRefused(), r.workerJobsPerSecond(), r.cancelled());
            Sample b = r.before(), x = r.floodMax();
            if (b == null || x == null) {
                System.out.printf("%s: worker memory: no samples (could not scrape the worker's /metrics)%n", m);
            } else {
                System.out.printf(Locale.ROOT, "%s: worker heap used %s before the flood, max %s during it; RSS %s before, max %s%n", m,
                        mib(b.heap()), mib(x.heap()), mib(b.rss()), mib(x.rss()));
                System.out.printf(Locale.ROOT, "%s: read-ahead %.0f records / %.1f KiB before the flood, max %.0f records / %.1f KiB during it%n", m,
                        b.raRecords(), b.raBytes() / 1024, x.raRecords(), x.raBytes() / 1024);
            }
            for (TenantResult t : r.quiet()) {
                System.out.printf(Locale.ROOT, "%s: quiet %s: POST -> 202 p50/p99 %.3fs / %.3fs alone, %.3fs / %.3fs under the flood (not in the table)%n", m, t.label(),
                        t.alone().postP(0.50), t.alone().postP(0.99), t.flood().postP(0.50), t.flood().postP(0.99));
                for (var phase : List.of(Map.entry("alone", t.alone()), Map.entry("flood", t.flood()))) {
                    Latencies l = phase.getValue();
                    if (!l.refused().isEmpty() || l.unfinishedCount() > 0) {
                        System.out.printf(Locale.ROOT, "%s: quiet %s %s: %d accepted, refused by status %s, not DONE by the deadline by state %s%n",
                                m, t.label(), phase.getKey(), l.submitted(), l.refused(), l.unfinished());
                    }
                }
            }
            System.out.printf("%s: load average (1/5/15 min, %d cores): %s%n", m, Runtime.getRuntime().availableProcessors(), String.join("; ", r.load()));
            for (String n : r.notes()) System.out.printf("%s: %s%n", m, n);
        }
        System.out.printf("(flood: %d client threads back to back, at most %d uploads, starting %d s before the quiet tenants' window and ending with it;%n", threads, cap, lead);
        System.out.printf(" unfinished a/f = quiet jobs not DONE %d s after their phase ended, alone / under the flood, of those accepted; a percentile that falls on one shows '>' its least wait)%n", grace);
        System.out.println(" memory: heap = jvm_memory_used_bytes{area=\"heap\"} summed, RSS = VmRSS of the worker process, read-ahead = fairpix_worker_read_ahead_{records,bytes};");
        System.out.println(" 'before' = the last 1 s sample before the flood, 'max' = over the flood and its grace period");
    }
}
