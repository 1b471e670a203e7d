package com.fairpix.bench;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.core.storage.S3ObjectStore;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.schedule.FairnessMeter;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * Fairness benchmark against the real stack (scripts/bench-fairness): an ingest-api in this JVM and
 * one worker (2 processing threads + the reserved one) in its own, real corpus photos, the demo's two
 * variants.
 *
 * <ol>
 *   <li>weights: four tenants with weights 1, 1, 2, 4 kept backlogged; service (cost units) per
 *       60 s window against the weight shares, and Jain's index over weight-normalised service;</li>
 *   <li>quiet alone: one tenant submits 1 job/s; its p99 queue wait (started − created);</li>
 *   <li>flood: the same while another tenant submits at 10× the farm's measured throughput.</li>
 * </ol>
 * Run once with the fair scheduler and once with FIFO, side by side. Tenants sit on distinct
 * partitions: within a partition Kafka itself is FIFO (see docs/scheduler.md).
 */
public final class FairnessBench {
    /** The demo's spec: a 256 px WebP thumbnail and a 1024 px JPEG. */
    static final String SPEC = "{\"variants\":{\"thumb\":[{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"webp\",\"quality\":80}],"
            + "\"large\":[{\"op\":\"resize\",\"width\":1024,\"height\":1024,\"fit\":\"contain\"},{\"op\":\"encode\",\"format\":\"jpeg\",\"quality\":85}]}}";
    static final int OPS = 4;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<byte[]> photos;
    private final int windowSeconds;
    private final String adminToken = "bench-" + UUID.randomUUID();
    private String base;

    FairnessBench(List<byte[]> photos, int windowSeconds) {
        this.photos = photos;
        this.windowSeconds = windowSeconds;
    }

    record Result(String scheduler, Map<String, Double> weights, List<Map<String, Double>> windowService, List<Double> jain,
                  double jobsPerSecond, Waits quietAlone, Waits quietFlood, int floodSubmitted) {}

    /** Queue waits of the quiet tenant's jobs, seconds (nearest rank). */
    record Waits(int n, double p50, double p99, double max) {
        static Waits of(List<Double> waits) {
            if (waits.isEmpty()) return new Waits(0, Double.NaN, Double.NaN, Double.NaN);
            List<Double> sorted = waits.stream().sorted().toList();
            return new Waits(sorted.size(), rank(sorted, 0.50), rank(sorted, 0.99), sorted.getLast());
        }

        static double rank(List<Double> sorted, double q) {
            return sorted.get(Math.max(0, (int) Math.ceil(q * sorted.size()) - 1));
        }
    }

    public static void main(String[] args) throws Exception {
        int window = 60;
        List<String> schedulers = List.of("fair", "fifo");
        Path corpus = Path.of("../shared/corpus");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--window" -> window = Integer.parseInt(args[++i]);
                case "--scheduler" -> schedulers = List.of(args[++i].split(","));
                case "--corpus" -> corpus = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + " (--window S, --scheduler fair,fifo, --corpus DIR)");
            }
        }
        List<byte[]> photos = new ArrayList<>();
        for (String suite : List.of("cameratrap-photos", "exif-orientation")) {
            try (Stream<Path> s = Files.list(corpus.resolve(suite))) {
                for (Path p : s.filter(p -> p.toString().endsWith(".jpg")).sorted().toList()) photos.add(Files.readAllBytes(p));
            }
        }
        if (photos.isEmpty()) throw new IllegalStateException("no photos under " + corpus);
        FairnessBench bench = new FairnessBench(photos, window);
        List<Result> results = new ArrayList<>();
        for (String s : schedulers) results.add(bench.run(s));
        print(results);
        System.exit(0);
    }

    Result run(String scheduler) throws Exception {
        System.err.printf("[bench] scheduler %s: weights phase (%d s), quiet alone (%d s), flood (%d s)%n", scheduler, 2 * windowSeconds, windowSeconds, windowSeconds);
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put(Setting.ADMIN_TOKEN.env(), adminToken);
        env.put(Setting.INGEST_PORT.env(), "0");
        env.put(Setting.WORKER_SCHEDULER.env(), scheduler);
        env.put(Setting.WORKER_THREADS.env(), "2");
        FairpixConfig config = FairpixConfig.load(env, Map.of());
        int partitions = config.integer(Setting.JOB_PARTITIONS);
        IngestApi ingest = IngestApi.start(config);
        Process worker = startWorker(env, scheduler);
        base = "http://127.0.0.1:" + ingest.port();
        try {
            String run = UUID.randomUUID().toString().substring(0, 4);
            // Phase 1: weights 1, 1, 2, 4, all backlogged.
            Map<String, Double> weights = new LinkedHashMap<>();
            Map<String, String> keys = new LinkedHashMap<>();
            double[] ws = {1, 1, 2, 4};
            for (int i = 0; i < ws.length; i++) {
                String t = onPartition("w" + (int) ws[i] + "-" + (char) ('a' + i) + "-" + run, i, partitions);
                keys.put(t, createTenant(t, ws[i]));
                weights.put(t, ws[i]);
            }
            // Warm up (JIT, connections), then measure with every tenant kept well backlogged.
            cancelOutstanding(keepBacklogged(keys, Duration.ofSeconds(10), 8));
            Instant start = Instant.now();
            List<Submitted> jobs = keepBacklogged(keys, Duration.ofSeconds(2L * windowSeconds), 48);
            // Records as the phase ends: queued leftovers are cancelled, running ones finish.
            cancelOutstanding(jobs);
            List<JsonNode> records = fetch(jobs);
            List<Map<String, Double>> windows = new ArrayList<>();
            List<Double> jain = new ArrayList<>();
            int done = 0;
            for (int w = 0; w < 2; w++) {
                Instant from = start.plusSeconds((long) w * windowSeconds), to = from.plusSeconds(windowSeconds);
                Map<String, Double> service = new LinkedHashMap<>();
                keys.keySet().forEach(t -> service.put(t, 0.0));
                for (JsonNode r : records) {
                    if (!"DONE".equals(r.path("state").asText())) continue;
                    Instant f = Instant.parse(r.get("finishedAt").asText());
                    if (f.isBefore(from) || !f.isBefore(to)) continue;
                    service.merge(r.get("tenant").asText(), cost(r), Double::sum);
                    done++;
                }
                windows.add(service);
                List<Double> normalised = new ArrayList<>();
                service.forEach((t, v) -> normalised.add(v / weights.get(t)));
                jain.add(FairnessMeter.jain(normalised));
            }
            double throughput = done / (2.0 * windowSeconds);

            // Phase 2: the quiet tenant alone, 1 job/s.
            String quiet = onPartition("quiet-" + run, 4, partitions);
            String quietKey = createTenant(quiet, 1);
            List<Submitted> quietAlone = submitAtRate(quietKey, 1.0, Duration.ofSeconds(windowSeconds), null);
            Waits alone = waits(fetch(quietAlone));

            // Phase 3: the same, while a flooder submits at 10x the measured throughput.
            String flooder = onPartition("flood-" + run, 5, partitions);
            String floodKey = createTenant(flooder, 1);
            AtomicBoolean stop = new AtomicBoolean();
            ConcurrentLinkedQueue<Submitted> flood = new ConcurrentLinkedQueue<>();
            double floodRate = Math.min(100, Math.max(1, 10 * throughput));
            Thread floodThread = Thread.ofPlatform().start(() -> flood.addAll(submitAtRate(floodKey, floodRate, Duration.ofSeconds(windowSeconds + 5), stop)));
            Thread.sleep(5_000); // the flood's backlog builds first
            List<Submitted> quietJobs = submitAtRate(quietKey, 1.0, Duration.ofSeconds(windowSeconds), null);
            stop.set(true);
            floodThread.join();
            Waits withFlood = waits(fetch(quietJobs, Duration.ofSeconds(600)));
            cancelOutstanding(new ArrayList<>(flood));
            return new Result(scheduler, weights, windows, jain, throughput, alone, withFlood, flood.size());
        } finally {
            worker.destroy(); // SIGTERM: the worker stops gracefully
            if (!worker.waitFor(30, TimeUnit.SECONDS)) worker.destroyForcibly();
            ingest.close();
            purge(config);
        }
    }

    /** Deletes this run's uploads and results: a run stores about 10 GB of photos, and the stack's disk is not endless. */
    void purge(FairpixConfig config) {
        try (S3ObjectStore s3 = new S3ObjectStore(config.get(Setting.S3_ENDPOINT), config.get(Setting.S3_REGION),
                config.get(Setting.S3_ACCESS_KEY), config.get(Setting.S3_SECRET_KEY), config.get(Setting.S3_BUCKET))) {
            int deleted = 0;
            for (String tenant : keyTenant.values()) deleted += s3.deletePrefix(com.fairpix.core.storage.StorageKeys.tenantPrefix(tenant));
            System.err.printf("[bench] deleted %d objects of %d bench tenants%n", deleted, keyTenant.size());
            keyTenant.clear();
        } catch (RuntimeException e) {
            System.err.println("[bench] could not delete the run's objects: " + e);
        }
    }

    /** The worker under test, in its own JVM (see {@link BenchWorker}); its log goes to bench/target. */
    static Process startWorker(Map<String, String> env, String scheduler) throws Exception {
        return startWorker(env, scheduler, List.of());
    }

    /**
     * @param name      names its log, bench/target/bench-worker-NAME.log
     * @param arguments for {@link BenchWorker}, e.g. {@code --port 0}
     */
    static Process startWorker(Map<String, String> env, String name, List<String> arguments) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Path log = workerLog(name);
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
        // Extra JVM options for the worker, e.g. -Xlog:gc:file=bench/target/gc.log
        String opts = env.getOrDefault("FAIRPIX_BENCH_WORKER_OPTS", "");
        if (!opts.isBlank()) command.addAll(List.of(opts.trim().split("\\s+")));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), BenchWorker.class.getName()));
        command.addAll(arguments);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.readString(log).contains("bench worker ready")) {
            if (!p.isAlive() || System.nanoTime() > until) throw new IllegalStateException("bench worker did not start; see " + log);
            sleep(100);
        }
        return p;
    }

    static Path workerLog(String name) {
        return Path.of("bench", "target", "bench-worker-" + name + ".log");
    }

    record Submitted(String key, String id) {}

    /** Each tenant keeps {@code depth} jobs outstanding for {@code duration}. */
    List<Submitted> keepBacklogged(Map<String, String> keys, Duration duration, int depth) throws Exception {
        List<Submitted> all = Collections.synchronizedList(new ArrayList<>());
        long until = System.nanoTime() + duration.toNanos();
        try (ExecutorService pool = Executors.newFixedThreadPool(keys.size())) {
            for (String key : keys.values()) {
                pool.submit(() -> {
                    Random random = new Random(key.hashCode());
                    List<String> outstanding = new ArrayList<>();
                    while (System.nanoTime() < until) {
                        outstanding.removeIf(id -> terminal(get(key, "/v1/jobs/" + id)));
                        while (outstanding.size() < depth) {
                            String id = submit(key, photos.get(random.nextInt(photos.size())));
                            if (id == null) break;
                            outstanding.add(id);
                            all.add(new Submitted(key, id));
                        }
                        Thread.sleep(1000);
                    }
                    return null;
                });
            }
        }
        return all;
    }

    /** Submits at {@code perSecond} for {@code duration} (or until {@code stop}). */
    List<Submitted> submitAtRate(String key, double perSecond, Duration duration, AtomicBoolean stop) {
        List<Submitted> out = Collections.synchronizedList(new ArrayList<>());
        long start = System.nanoTime(), until = start + duration.toNanos();
        long intervalNanos = (long) (1e9 / perSecond);
        Random random = new Random(key.hashCode());
        try (ExecutorService pool = Executors.newFixedThreadPool(perSecond > 4 ? 8 : 1)) {
            for (long next = start; next < until && (stop == null || !stop.get()); next += intervalNanos) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    try {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    } catch (InterruptedException e) {
                        break;
                    }
                }
                byte[] photo = photos.get(random.nextInt(photos.size()));
                pool.submit(() -> {
                    String id = submit(key, photo);
                    if (id != null) out.add(new Submitted(key, id));
                });
            }
        }
        return out;
    }

    List<JsonNode> fetch(List<Submitted> jobs) {
        return fetch(jobs, Duration.ofSeconds(300));
    }

    /** Final records, waiting for each to end (at most {@code timeout} in all). */
    List<JsonNode> fetch(List<Submitted> jobs, Duration timeout) {
        long until = System.nanoTime() + timeout.toNanos();
        List<JsonNode> out = new ArrayList<>();
        for (Submitted s : jobs) {
            JsonNode job = get(s.key(), "/v1/jobs/" + s.id());
            while (!terminal(job) && System.nanoTime() < until) {
                sleep(50);
                job = get(s.key(), "/v1/jobs/" + s.id());
            }
            out.add(job);
        }
        return out;
    }

    void cancelOutstanding(List<Submitted> jobs) {
        for (Submitted s : jobs) {
            try {
                http.send(HttpRequest.newBuilder(URI.create(base + "/v1/jobs/" + s.id())).header("Authorization", "Bearer " + s.key()).DELETE().build(),
                        HttpResponse.BodyHandlers.discarding());
            } catch (Exception ignored) {
                // already finished or the farm is going away
            }
        }
    }

    static double cost(JsonNode job) {
        return Math.max(1.0, job.at("/original/width").asDouble() * job.at("/original/height").asDouble() / 1e6) * OPS;
    }

    /**
     * Queue waits, seconds: from the job's Kafka record (its {@code queuedAt}, set when the ingest
     * queued it) to the worker's start, both taken on the server. The upload and store before it are
     * the ingest's time, not the queue's.
     */
    static Waits waits(List<JsonNode> jobs) {
        List<Double> waits = new ArrayList<>();
        for (JsonNode j : jobs) {
            if (!j.hasNonNull("startedAt") || !j.hasNonNull("queuedAt")) continue;
            waits.add(Duration.between(Instant.parse(j.get("queuedAt").asText()), Instant.parse(j.get("startedAt").asText())).toNanos() / 1e9);
        }
        // The slowest few, with when they were queued, to line up with worker or GC logs.
        jobs.stream().filter(j -> j.hasNonNull("startedAt") && j.hasNonNull("queuedAt"))
                .sorted(java.util.Comparator.comparing((JsonNode j) -> Duration.between(Instant.parse(j.get("queuedAt").asText()), Instant.parse(j.get("startedAt").asText()))).reversed())
                .limit(3).forEach(j -> System.err.printf("[bench] slow start: queued %s started %s%n", j.get("queuedAt").asText(), j.get("startedAt").asText()));
        return Waits.of(waits);
    }

    String createTenant(String id, double weight) throws Exception {
        String body = Json.write(Map.of("id", id, "weight", weight, "rate", 10_000, "burst", 100_000, "maxConcurrentJobs", 100_000, "dailyQuota", 10_000_000));
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/admin/v1/tenants"))
                .header("Authorization", "Bearer " + adminToken).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) throw new IllegalStateException("create tenant " + id + ": " + r.statusCode() + " " + r.body());
        String key = Json.mapper().readTree(r.body()).get("apiKey").asText();
        keyTenant.put(key, id);
        return key;
    }

    String submit(String key, byte[] photo) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/jobs?spec=" + URLEncoder.encode(SPEC, StandardCharsets.UTF_8)))
                    .header("Authorization", "Bearer " + key).header("Content-Type", "image/jpeg")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(photo)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 202 ? Json.mapper().readTree(r.body()).get("id").asText() : null;
        } catch (Exception e) {
            return null;
        }
    }

    JsonNode get(String key, String path) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + key).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode node = Json.mapper().readTree(r.body());
            if (node.isObject() && node.has("id")) ((com.fasterxml.jackson.databind.node.ObjectNode) node).put("tenant", keyTenant.getOrDefault(key, ""));
            return node;
        } catch (Exception e) {
            return Json.mapper().createObjectNode();
        }
    }

    private final Map<String, String> keyTenant = new ConcurrentHashMap<>();

    static boolean terminal(JsonNode job) {
        String s = job.path("state").asText();
        return s.equals("DONE") || s.equals("FAILED") || s.equals("CANCELLED");
    }

    static String onPartition(String prefix, int partition, int partitions) {
        for (int i = 0; ; i++) {
            String id = prefix + i;
            int p = com.fairpix.core.kafka.TenantPlacement.home(id, partitions);
            if (p == partition) return id;
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void print(List<Result> results) {
        System.out.println();
        System.out.println("Weights phase: service in cost units (tokens) per window");
        System.out.printf("%-9s %-6s %-18s %6s %10s %10s %10s%n", "scheduler", "window", "tenant", "weight", "service", "share", "weight-share");
        for (Result r : results) {
            double totalWeight = r.weights().values().stream().mapToDouble(Double::doubleValue).sum();
            for (int w = 0; w < r.windowService().size(); w++) {
                Map<String, Double> s = r.windowService().get(w);
                double total = s.values().stream().mapToDouble(Double::doubleValue).sum();
                for (var e : s.entrySet()) {
                    System.out.printf(Locale.ROOT, "%-9s %-6d %-18s %6.0f %10.1f %10.3f %10.3f%n", r.scheduler(), w + 1, e.getKey(),
                            r.weights().get(e.getKey()), e.getValue(), total == 0 ? 0 : e.getValue() / total, r.weights().get(e.getKey()) / totalWeight);
                }
            }
        }
        System.out.println();
        System.out.printf("%-9s %8s %8s %7s %22s %22s %9s %9s %8s%n", "scheduler", "jain w1", "jain w2", "jobs/s",
                "quiet alone p50/p99", "quiet flood p50/p99", "flood max", "p99 ratio", "flood n");
        for (Result r : results) {
            System.out.printf(Locale.ROOT, "%-9s %8.3f %8.3f %7.2f %10.3fs / %7.3fs %10.3fs / %7.3fs %8.3fs %9.2f %8d%n", r.scheduler(), r.jain().get(0), r.jain().get(1),
                    r.jobsPerSecond(), r.quietAlone().p50(), r.quietAlone().p99(), r.quietFlood().p50(), r.quietFlood().p99(), r.quietFlood().max(),
                    r.quietFlood().p99() / r.quietAlone().p99(), r.floodSubmitted());
        }
        System.out.println("quiet = the quiet tenant's queue wait (queuedAt -> startedAt in its job records) at 1 job/s, alone and while another");
        System.out.println("tenant floods at 10x the measured throughput (at most 100 jobs/s, what one client here can upload).");
    }
}
