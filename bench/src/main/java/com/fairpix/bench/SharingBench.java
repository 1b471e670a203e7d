package com.fairpix.bench;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.core.redis.RedisKeys;
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
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Guarantee sharing benchmark (issue 31; {@code scripts/bench-isolation --sharing}): issue 31's
 * scenario with the shipped defaults but for {@code admission.guarantee-sharing}, run once per rule,
 * side by side: {@code proportional} (every rate scaled by min(1, M ÷ Σ rates), the behaviour before)
 * and {@code max-min} (the default). An ingest-api in this JVM and N worker processes
 * ({@link BenchWorker}, default settings); a tenant {@code noisy} with rate 200 and burst 400
 * floods with 8 connections that honour {@code Retry-After}; four tenants with the default limits
 * (rate 10) each send one 2048×1536 camera-trap photo a second for a 256 px thumbnail (3.15 tokens),
 * W s alone and then W s under the flood. Per quiet tenant: p50/p99 submit → done (the client's send
 * → the job's finishedAt) alone and under the flood, and the refusals; the flooder's admitted rate.
 */
public final class SharingBench {
    static final String SPEC = "{\"variants\":{\"thumb\":[{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"webp\",\"quality\":80}]}}";
    static final int QUIET = 4;
    static final int FLOOD_CONNECTIONS = 8;

    record Sent(String key, int phase, int status, String retryAfter, String id, Instant at) {}

    record QuietResult(String tenant, List<Double> alone, List<Double> flood, int refusedAlone, int refusedFlood, int unfinished) {}

    record ModeResult(String mode, int partitions, int workers, List<QuietResult> quiet, double flooderAdmitted, int flooderRefused,
                      double capacity, double guaranteeCapacity, double level, String statusAtEnd, String load) {}

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final byte[] photo;
    private final int window;
    private final int workers;
    private final String adminToken = "bench-" + UUID.randomUUID();
    private final Map<String, String> keyTenant = new ConcurrentHashMap<>();
    private String base;

    SharingBench(byte[] photo, int window, int workers) {
        this.photo = photo;
        this.window = window;
        this.workers = workers;
    }

    public static void main(String[] args) throws Exception {
        int window = 60, workers = 3;
        List<String> modes = List.of("proportional", "max-min");
        Path corpus = Path.of("../shared/corpus");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--window" -> window = Integer.parseInt(args[++i]);
                case "--workers" -> workers = Integer.parseInt(args[++i]);
                case "--modes" -> modes = List.of(args[++i].split(","));
                case "--corpus" -> corpus = Path.of(args[++i]);
                case "--sharing" -> { }
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + " (--window S, --workers N, --modes proportional,max-min, --corpus DIR)");
            }
        }
        byte[] photo = Files.readAllBytes(corpus.resolve("cameratrap-photos/american_black_bear.jpg"));
        SharingBench bench = new SharingBench(photo, window, workers);
        List<ModeResult> results = new ArrayList<>();
        for (String m : modes) results.add(bench.run(m));
        print(results, window);
        System.exit(0);
    }

    ModeResult run(String mode) throws Exception {
        System.err.printf("[bench] %s: %d workers, %d s alone + %d s under the flood%n", mode, workers, window, window);
        String settled = IsolationBench.settle(Duration.ofSeconds(90));
        Map<String, String> env = new HashMap<>(System.getenv());
        env.keySet().removeIf(k -> k.startsWith("FAIRPIX_WORKER_") || k.startsWith("FAIRPIX_ADMISSION_"));
        env.put(Setting.ADMIN_TOKEN.env(), adminToken);
        env.put(Setting.INGEST_PORT.env(), "0");
        env.put(Setting.ADMISSION_GUARANTEE_SHARING.env(), mode);
        FairpixConfig config = FairpixConfig.load(env, Map.of());
        int partitions;
        try (var admin = org.apache.kafka.clients.admin.Admin.create(Map.of("bootstrap.servers", config.get(Setting.KAFKA_BOOTSTRAP)))) {
            com.fairpix.core.kafka.KafkaSupport.ensureTopics(config.get(Setting.KAFKA_BOOTSTRAP), config.integer(Setting.JOB_PARTITIONS));
            partitions = admin.describeTopics(List.of("fairpix.jobs.cpu")).allTopicNames().get(30, TimeUnit.SECONDS).get("fairpix.jobs.cpu").partitions().size();
        }
        try (var redis = com.fairpix.core.redis.Redis.connect(config.get(Setting.REDIS_URL))) {
            // Start from no measurement and no active tenants: each rule sees the farm measure itself from scratch.
            redis.del(RedisKeys.capacity("cpu"), RedisKeys.activeTenants("cpu"));
        }
        IngestApi ingest = IngestApi.start(config);
        base = "http://127.0.0.1:" + ingest.port();
        List<Process> procs = new ArrayList<>();
        List<Sent> sent = new CopyOnWriteArrayList<>();
        try {
            for (int w = 0; w < workers; w++) procs.add(FairnessBench.startWorker(env, "sharing-" + mode + "-" + w, List.of()));
            String run = UUID.randomUUID().toString().substring(0, 6);
            String noisyKey = createTenant("noisy-" + run, Map.of("rate", 200, "burst", 400, "maxConcurrentJobs", 100_000, "dailyQuota", 10_000_000));
            List<String> quietKeys = new ArrayList<>();
            for (int i = 0; i < QUIET; i++) quietKeys.add(createTenant("quiet" + (i + 1) + "-" + run, Map.of()));
            // Warm-up: JIT, OpenCV, connections (10 jobs of a tenant of its own).
            String warm = createTenant("warm-" + run, Map.of());
            for (int i = 0; i < 10; i++) {
                Sent s = submit(warm, 0);
                if (s.id() != null) await(warm, s.id(), System.nanoTime() + TimeUnit.SECONDS.toNanos(60));
            }
            AtomicBoolean quietRuns = new AtomicBoolean(true);
            AtomicBoolean flooding = new AtomicBoolean(false);
            int[] phase = {0};
            List<double[]> samples = new CopyOnWriteArrayList<>();
            String statusAtEnd = "";
            Instant floodStart;
            Instant floodEnd;
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < QUIET; i++) {
                    String key = quietKeys.get(i);
                    int q = i;
                    pool.submit(() -> {
                        long next = System.nanoTime() + q * 250_000_000L;
                        while (quietRuns.get()) {
                            long wait = next - System.nanoTime();
                            if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                            next += 1_000_000_000L;
                            sent.add(submit(key, phase[0]));
                        }
                        return null;
                    });
                }
                Thread.sleep(window * 1000L);
                phase[0] = 1;
                floodStart = Instant.now();
                flooding.set(true);
                Instant end = floodStart.plusSeconds(window);
                for (int c = 0; c < FLOOD_CONNECTIONS; c++) {
                    pool.submit(() -> {
                        while (flooding.get()) {
                            Sent s = submit(noisyKey, 1);
                            sent.add(s);
                            if (s.status() != 202) {
                                long waitS = s.retryAfter() == null ? 1 : Long.parseLong(s.retryAfter());
                                long ms = Math.min(waitS * 1000, Math.max(0, Duration.between(Instant.now(), end).toMillis()));
                                Thread.sleep(ms);
                            }
                        }
                        return null;
                    });
                }
                while (Instant.now().isBefore(end)) {
                    Thread.sleep(1000);
                    JsonNode status = status();
                    JsonNode cpu = status.path("capacity").path("cpu");
                    if (Instant.now().isAfter(floodStart.plusSeconds(10))) {
                        samples.add(new double[] {cpu.path("admissionCapacity").asDouble(), cpu.path("guaranteeCapacity").asDouble(), cpu.path("guaranteeScale").asDouble()});
                    }
                    statusAtEnd = Json.write(cpu);
                }
                flooding.set(false);
                quietRuns.set(false);
                floodEnd = Instant.now();
            }
            String load = IsolationBench.loadAverage();
            // The quiet tenants' jobs, each waited for (at most 120 s after the flood).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            List<QuietResult> quiet = new ArrayList<>();
            for (String key : quietKeys) {
                List<Double> alone = new ArrayList<>(), flood = new ArrayList<>();
                int refusedAlone = 0, refusedFlood = 0, unfinished = 0;
                for (Sent s : sent) {
                    if (!s.key().equals(key)) continue;
                    if (s.status() != 202) {
                        if (s.phase() == 0) refusedAlone++;
                        else refusedFlood++;
                        continue;
                    }
                    JsonNode job = await(key, s.id(), deadline);
                    if (!"DONE".equals(job.path("state").asText())) {
                        unfinished++;
                        continue;
                    }
                    double seconds = Duration.between(s.at(), Instant.parse(job.get("finishedAt").asText())).toNanos() / 1e9;
                    (s.phase() == 0 ? alone : flood).add(seconds);
                }
                Collections.sort(alone);
                Collections.sort(flood);
                quiet.add(new QuietResult(keyTenant.get(key), alone, flood, refusedAlone, refusedFlood, unfinished));
            }
            Instant from = floodStart.plusSeconds(10);
            double span = Duration.between(from, floodEnd).toMillis() / 1000.0;
            long admitted = sent.stream().filter(s -> s.key().equals(noisyKey) && s.status() == 202 && !s.at().isBefore(from)).count();
            int refused = (int) sent.stream().filter(s -> s.key().equals(noisyKey) && s.status() != 202).count();
            double cost = 2048 * 1536 / 1e6;
            int cancelled = cancel(sent.stream().filter(s -> s.key().equals(noisyKey) && s.id() != null).toList());
            System.err.printf("[bench] %s: cancelled %d queued flood jobs%n", mode, cancelled);
            return new ModeResult(mode, partitions, workers, quiet, admitted * cost / span, refused,
                    samples.stream().mapToDouble(x -> x[0]).average().orElse(Double.NaN),
                    samples.stream().mapToDouble(x -> x[1]).average().orElse(Double.NaN),
                    samples.stream().mapToDouble(x -> x[2]).average().orElse(Double.NaN), statusAtEnd, settled + "; load at the flood's end " + load);
        } finally {
            for (Process p : procs) p.destroy();
            for (Process p : procs) if (!p.waitFor(30, TimeUnit.SECONDS)) p.destroyForcibly();
            ingest.close();
            purge(config);
        }
    }

    static void print(List<ModeResult> results, int window) {
        System.out.println();
        System.out.printf("Guarantee sharing, issue 31: a tenant at rate 200 (burst 400) floods with %d connections; four tenants at the default rate (10) send one 2048x1536 photo/s each (3.15 tokens), %d s alone then %d s under the flood%n",
                FLOOD_CONNECTIONS, window, window);
        System.out.println();
        System.out.println("| sharing | quiet tenant | alone p50 / p99 | under the flood p50 / p99 | p99 ratio | refused alone | refused under the flood | unfinished |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (ModeResult r : results) {
            for (QuietResult q : r.quiet()) {
                double ratio = p(q.flood(), 0.99) / p(q.alone(), 0.99);
                System.out.printf(Locale.ROOT, "| %s | %s | %.3f s / %.3f s | %.3f s / %.3f s | %.2f | %d of %d | %d of %d | %d |%n", r.mode(), q.tenant(),
                        p(q.alone(), 0.5), p(q.alone(), 0.99), p(q.flood(), 0.5), p(q.flood(), 0.99), ratio,
                        q.refusedAlone(), q.alone().size() + q.refusedAlone(), q.refusedFlood(), q.flood().size() + q.refusedFlood(), q.unfinished());
            }
        }
        System.out.println();
        System.out.println("| sharing | partitions | workers | C (tokens/s, mean) | M | level | flooder admitted (tokens/s, after 10 s) | flooder refused | quiet tenants' guarantee |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        for (ModeResult r : results) {
            double g = r.mode().equals("max-min") ? r.level() * Math.min(10, r.guaranteeCapacity()) : r.level() * 10;
            System.out.printf(Locale.ROOT, "| %s | %d | %d | %.1f | %.1f | %.3f | %.1f | %d | %.2f |%n", r.mode(), r.partitions(), r.workers(), r.capacity(), r.guaranteeCapacity(),
                    r.level(), r.flooderAdmitted(), r.flooderRefused(), g);
        }
        System.out.println();
        for (ModeResult r : results) {
            System.out.println("[" + r.mode() + "] " + r.load());
            System.out.println("[" + r.mode() + "] status at the flood's end: " + r.statusAtEnd());
        }
    }

    static double p(List<Double> sorted, double q) {
        return sorted.isEmpty() ? Double.NaN : sorted.get(Math.max(1, (int) Math.ceil(q * sorted.size())) - 1);
    }

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

    Sent submit(String key, int phase) {
        Instant at = Instant.now();
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/jobs?spec=" + URLEncoder.encode(SPEC, StandardCharsets.UTF_8)))
                    .header("Authorization", "Bearer " + key).header("Content-Type", "image/jpeg")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(photo)).build(), HttpResponse.BodyHandlers.ofString());
            String id = r.statusCode() == 202 ? Json.mapper().readTree(r.body()).get("id").asText() : null;
            return new Sent(key, phase, r.statusCode(), r.headers().firstValue("Retry-After").orElse(null), id, at);
        } catch (Exception e) {
            return new Sent(key, phase, 0, null, null, at);
        }
    }

    JsonNode await(String key, String id, long deadline) {
        JsonNode job = get(key, "/v1/jobs/" + id);
        while (!FairnessBench.terminal(job) && System.nanoTime() < deadline) {
            FairnessBench.sleep(200);
            job = get(key, "/v1/jobs/" + id);
        }
        return job;
    }

    JsonNode status() {
        return get(adminToken, "/admin/v1/status");
    }

    JsonNode get(String bearer, String path) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + bearer).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return Json.mapper().readTree(r.body());
        } catch (Exception e) {
            return Json.mapper().createObjectNode();
        }
    }

    int cancel(List<Sent> jobs) throws InterruptedException {
        java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            for (Sent s : jobs) {
                pool.submit(() -> {
                    try {
                        HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/jobs/" + s.id()))
                                .header("Authorization", "Bearer " + s.key()).DELETE().build(), HttpResponse.BodyHandlers.discarding());
                        if (r.statusCode() == 200) n.incrementAndGet();
                    } catch (Exception ignored) {
                        // already finished
                    }
                });
            }
        }
        // Let the workers skip what was cancelled before the next mode starts.
        Thread.sleep(15_000);
        return n.get();
    }

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
}
