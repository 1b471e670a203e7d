package com.fairpix.bench;

import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.JobState;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.Topics;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.storage.S3ObjectStore;
import com.fairpix.core.storage.StorageKeys;
import com.fairpix.worker.process.ImagePipeline;
import java.io.IOException;
import java.net.ServerSocket;
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
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import redis.clients.jedis.UnifiedJedis;

/**
 * The farm against the work it cannot avoid (issue 21), each farm build ("variant": a
 * {@code fairpix.jar}, e.g. the baseline commit and the working tree) side by side in one run:
 * <ol>
 *   <li><b>drain</b>: {@code --jobs} jobs of one photo (256 px {@code cover}, JPEG q80) are queued
 *       through the variant's ingest-api, the ingest is stopped, then the variant's worker
 *       ({@code --threads} processing threads) drains the backlog alone. The rate is the steady one,
 *       jobs N/6 to 5N/6 by their records' {@code finishedAt}, against {@link ImagePipeline} on the same
 *       bytes, spec and threads in this JVM (no Kafka, Redis or S3), measured before and after the drains;</li>
 *   <li><b>ingest</b>: accepted uploads per second of each file at {@code --concurrency} clients,
 *       against a bare loop of S3 PUTs of the same bytes through the same SDK ({@link S3ObjectStore})
 *       at the same concurrency, run just before each variant.</li>
 * </ol>
 * For each, the CPU split over the measured window: CPU milliseconds per job of the service's JVM
 * and of the stack's servers (from {@code /proc/PID/stat}), the service's threads grouped by name
 * ({@code /proc/PID/task}), and, from a JFR recording of the service ({@code settings=profile}),
 * its Java execution samples by the library of the innermost non-JDK frame, plus the samples in
 * OpenCV's native code.
 *
 * <p>Usage: {@code FarmBench --variant NAME=JAR [--variant ...] --photo FILE --ingest-file FILE...
 * [--jobs 3000] [--threads 2] [--concurrency 8] [--uploads 400] [--phases drain,ingest] [--state-dir DIR] [--no-jfr]}.
 * Needs the stack's variables (FAIRPIX_REDIS_URL, FAIRPIX_KAFKA_BOOTSTRAP, FAIRPIX_S3_*).
 */
public final class FarmBench {
    static final String SPEC = "{\"variants\":{\"thumb\":[{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"cover\"},"
            + "{\"op\":\"encode\",\"format\":\"jpeg\",\"quality\":80}]}}";
    private static final long CLK_TCK = 100; // USER_HZ: /proc times are in 1/100 s on Linux

    private final Map<String, String> env;
    private final Path stateDir;
    private final Path logDir;
    private final String adminToken = "bench-admin-token-" + UUID.randomUUID();
    private final String run = UUID.randomUUID().toString().substring(0, 6);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final UnifiedJedis redis;
    private final JobStore jobs;
    private final List<String> tenants = Collections.synchronizedList(new ArrayList<>());
    /** Record the measured services with JFR (off: no Java-sample split, and no recording's own cost). */
    private boolean jfr = true;

    FarmBench(Map<String, String> env, Path stateDir) throws IOException {
        this.env = env;
        this.stateDir = stateDir;
        this.logDir = stateDir.resolve("logs/bench-farm");
        Files.createDirectories(logDir);
        this.redis = Redis.connect(need("FAIRPIX_REDIS_URL"));
        this.jobs = JobStore.redis(redis, 3600);
    }

    /** A farm build to measure: its jar, and settings (FAIRPIX_* variables) its services get on top of the environment. */
    record Variant(String name, Path jar, Map<String, String> settings) {}

    public static void main(String[] args) throws Exception {
        List<Variant> variants = new ArrayList<>();
        List<Path> ingestFiles = new ArrayList<>();
        Path photo = Path.of("samples/american_black_bear.jpg");
        Path stateDir = Path.of(".fairpix");
        int jobs = 3000, threads = 2, concurrency = 8, uploads = 400;
        boolean noJfr = false;
        List<String> phases = List.of("drain", "ingest");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--variant" -> {
                    // NAME=JAR[,FAIRPIX_X=VALUE...]
                    String[] nv = args[++i].split("=", 2);
                    String[] parts = nv[1].split(",");
                    Map<String, String> settings = new LinkedHashMap<>();
                    for (int k = 1; k < parts.length; k++) {
                        String[] kv = parts[k].split("=", 2);
                        settings.put(kv[0], kv[1]);
                    }
                    variants.add(new Variant(nv[0], Path.of(parts[0]).toAbsolutePath(), settings));
                }
                case "--photo" -> photo = Path.of(args[++i]);
                case "--ingest-file" -> ingestFiles.add(Path.of(args[++i]));
                case "--jobs" -> jobs = Integer.parseInt(args[++i]);
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--concurrency" -> concurrency = Integer.parseInt(args[++i]);
                case "--uploads" -> uploads = Integer.parseInt(args[++i]);
                case "--phases" -> phases = List.of(args[++i].split(","));
                case "--state-dir" -> stateDir = Path.of(args[++i]);
                case "--no-jfr" -> noJfr = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (variants.isEmpty()) throw new IllegalArgumentException("no --variant NAME=JAR");
        FarmBench bench = new FarmBench(System.getenv(), stateDir);
        bench.jfr = !noJfr;
        try {
            List<String> report = new ArrayList<>();
            if (phases.contains("drain")) report.addAll(bench.drainPhase(variants, Files.readAllBytes(photo), photo.getFileName().toString(), jobs, threads));
            if (phases.contains("ingest")) report.addAll(bench.ingestPhase(variants, ingestFiles, concurrency, uploads));
            System.out.println();
            report.forEach(System.out::println);
        } finally {
            bench.purge();
        }
        System.exit(0);
    }

    // ---------------------------------------------------------------- drain

    List<String> drainPhase(List<Variant> variants, byte[] photo, String photoName, int n, int threads) throws Exception {
        List<String> out = new ArrayList<>();
        double pipelineBefore = pipelineRate(photo, threads, n);
        log("pipeline: %.1f thumbnails/s", pipelineBefore);
        Map<String, Drain> drains = new LinkedHashMap<>();
        for (Variant v : variants) drains.put(v.name(), drain(v, photo, n, threads));
        double pipelineAfter = pipelineRate(photo, threads, n);
        log("pipeline again: %.1f thumbnails/s", pipelineAfter);
        double pipeline = (pipelineBefore + pipelineAfter) / 2;
        out.add(String.format(Locale.ROOT, "Drain: %d jobs of %s (%d bytes), 256 px cover, JPEG q80, %d processing threads; steady rate over jobs %d-%d",
                n, photoName, photo.length, threads, n / 6, 5 * n / 6));
        out.add(String.format(Locale.ROOT, "  PipelineBench-equivalent in-process pipeline: %.1f and %.1f thumbnails/s (mean %.1f)", pipelineBefore, pipelineAfter, pipeline));
        out.add(String.format(Locale.ROOT, "  %-10s %10s %10s %8s", "variant", "jobs/s", "÷pipeline", "failed"));
        for (var e : drains.entrySet()) {
            Drain d = e.getValue();
            double cpuMs = d.cpu().processes().entrySet().stream().filter(x -> x.getKey().equals("service JVM") || x.getKey().equals("processors"))
                    .mapToDouble(Map.Entry::getValue).sum();
            out.add(String.format(Locale.ROOT, "  %-10s %10.1f %10.2f %8d   CPU ms/job (service JVM + processors) %.2f%s", e.getKey(), d.rate(), d.rate() / pipeline, d.failed(),
                    cpuMs, d.processors() > 0 ? String.format(Locale.ROOT, "; %d processors, RSS %.0f MB each", d.processors(), d.processorRss() / 1e6) : ""));
        }
        for (var e : drains.entrySet()) out.addAll(e.getValue().cpu().lines("drain, " + e.getKey(), "job"));
        return out;
    }

    record Drain(double rate, int failed, CpuSplit cpu, int processors, long processorRss) {}

    Drain drain(Variant v, byte[] photo, int n, int threads) throws Exception {
        log("%s: queueing %d jobs through its ingest-api", v.name(), n);
        String tenant = "farm-" + v.name() + "-" + run;
        List<String> ids;
        Service ingest = start(v, "ingest-api", "drain-ingest", false);
        try {
            String key = createTenant(ingest, tenant, "cpu");
            ids = submitMany(ingest, key, photo, n, 8);
        } finally {
            ingest.stop();
        }
        if (ids.size() < n) throw new IllegalStateException(v.name() + ": only " + ids.size() + " of " + n + " jobs were accepted");
        log("%s: backlog of %d queued; starting its worker", v.name(), n);
        Service worker = start(v, "worker", "drain-worker", true, "--threads", Integer.toString(threads));
        CpuSampler cpu = new CpuSampler(worker.process.pid(), stackPids());
        Map<String, JobRecord> ended = new HashMap<>();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(15);
        try {
            while (ended.size() < ids.size()) {
                if (System.nanoTime() > deadline) throw new IllegalStateException(v.name() + ": drain did not finish in 15 min (" + ended.size() + " ended)");
                if (!worker.process.isAlive()) throw new IllegalStateException(v.name() + ": worker died; see " + worker.log);
                // Jobs end in about the order they were queued: read records up to the first one still
                // open, not all of them (reading 1,200 records twice a second would load Redis and
                // this JVM during the measurement).
                for (String id : ids) {
                    if (ended.containsKey(id)) continue;
                    Optional<JobRecord> r = jobs.get(tenant, id);
                    if (r.isEmpty() || !r.get().state().terminal()) break;
                    ended.put(id, r.get());
                }
                Thread.sleep(500);
            }
        } finally {
            cpu.stop();
            worker.stop();
        }
        List<JobRecord> done = ended.values().stream().filter(r -> r.state() == JobState.DONE)
                .sorted(java.util.Comparator.comparing(JobRecord::finishedAt)).toList();
        int failed = ids.size() - done.size();
        if (done.size() < n / 2) throw new IllegalStateException(v.name() + ": only " + done.size() + " jobs DONE; see " + worker.log);
        int a = done.size() / 6, b = 5 * done.size() / 6;
        Instant from = done.get(a).finishedAt(), to = done.get(b).finishedAt();
        double seconds = Duration.between(from, to).toNanos() / 1e9;
        double rate = (b - a) / seconds;
        log("%s: %.1f jobs/s steady (%d failed)", v.name(), rate, failed);
        if (cpu.processorCount > 0) log("%s: %d processor JVMs, resident set up to %.0f MB each (mean over them, largest sample)", v.name(), cpu.processorCount, cpu.processorRss / 1e6);
        CpuSplit split = cpu.between(from.toEpochMilli(), to.toEpochMilli(), b - a).withJfr(worker.jfr(), from.toEpochMilli(), to.toEpochMilli());
        return new Drain(rate, failed, split, cpu.processorCount, cpu.processorRss);
    }

    /** Thumbnails per second of the in-process pipeline on {@code photo} (one untimed warm-up pass of 50). */
    static double pipelineRate(byte[] photo, int threads, int n) throws Exception {
        JobSpec spec = Json.read(SPEC, JobSpec.class);
        ImagePipeline pipeline = new ImagePipeline(100_000_000L);
        runPipeline(pipeline, spec, photo, threads, 50);
        long t0 = System.nanoTime();
        runPipeline(pipeline, spec, photo, threads, n);
        return n / ((System.nanoTime() - t0) / 1e9);
    }

    private static void runPipeline(ImagePipeline pipeline, JobSpec spec, byte[] photo, int threads, int n) throws Exception {
        AtomicInteger next = new AtomicInteger();
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                fs.add(pool.submit(() -> {
                    while (next.getAndIncrement() < n) {
                        if (pipeline.process(photo.clone(), spec).get("thumb").data().length == 0) throw new IllegalStateException("empty thumbnail");
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) f.get();
        }
    }

    // ---------------------------------------------------------------- ingest

    List<String> ingestPhase(List<Variant> variants, List<Path> files, int concurrency, int uploads) throws Exception {
        List<String> out = new ArrayList<>();
        List<CpuSplit> splits = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "Ingest: accepted uploads/s at concurrency %d vs a bare S3 PUT loop (same SDK, same bytes, same concurrency) run just before",
                concurrency));
        out.add(String.format(Locale.ROOT, "  %-28s %-10s %10s %10s %10s", "file", "variant", "bare PUT/s", "accepted/s", "÷bare"));
        for (Path f : files) {
            byte[] data = Files.readAllBytes(f);
            int count = data.length > 1_000_000 ? Math.max(concurrency * 4, uploads / 2) : uploads;
            for (Variant v : variants) {
                double bare = barePutRate(data, concurrency, count);
                Service ingest = start(v, "ingest-api", "ingest-" + f.getFileName(), true);
                double rate;
                CpuSplit split;
                long t0, t1;
                try {
                    String key = createTenant(ingest, "farm-in-" + v.name() + "-" + run + "-" + f.getFileName().toString().hashCode(), "gpu");
                    submitMany(ingest, key, data, Math.max(4 * concurrency, count / 2), concurrency); // warm-up: JIT, connections
                    CpuSampler cpu = new CpuSampler(ingest.process.pid(), stackPids());
                    t0 = System.currentTimeMillis();
                    List<String> ids = submitMany(ingest, key, data, count, concurrency);
                    t1 = System.currentTimeMillis();
                    cpu.stop();
                    if (ids.size() < count) throw new IllegalStateException(v.name() + ": " + (count - ids.size()) + " uploads refused");
                    rate = count / ((t1 - t0) / 1000.0);
                    split = cpu.between(t0, t1, count);
                    cancel(ingest, key, ids);
                } finally {
                    ingest.stop();
                }
                splits.add(split.withJfr(ingest.jfr(), t0, t1));
                labels.add(f.getFileName() + ", " + v.name());
                log("ingest %s %s: %.1f accepted/s vs %.1f bare PUT/s", f.getFileName(), v.name(), rate, bare);
                out.add(String.format(Locale.ROOT, "  %-28s %-10s %10.1f %10.1f %10.2f", f.getFileName() + " (" + data.length / 1000 + " kB)", v.name(), bare, rate, rate / bare));
            }
        }
        for (int i = 0; i < splits.size(); i++) out.addAll(splits.get(i).lines("ingest, " + labels.get(i), "upload"));
        drainCancelled(variants.get(variants.size() - 1));
        return out;
    }

    double barePutRate(byte[] data, int concurrency, int count) throws Exception {
        try (S3ObjectStore s3 = s3()) {
            String prefix = StorageKeys.tenantPrefix("farm-bare-" + run);
            AtomicInteger next = new AtomicInteger();
            Runnable loop = () -> {
                for (int i; (i = next.getAndIncrement()) < count; ) s3.put(prefix + "put-" + (i % 64), data, "image/jpeg");
            };
            runConcurrently(loop, concurrency); // warm-up round: connections, JIT
            next.set(0);
            long t0 = System.nanoTime();
            runConcurrently(loop, concurrency);
            return count / ((System.nanoTime() - t0) / 1e9);
        }
    }

    private static void runConcurrently(Runnable r, int threads) throws Exception {
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) fs.add(pool.submit(r));
            for (Future<?> f : fs) f.get();
        }
    }

    /** The ingest phase's jobs went to the gpu pool's queue and were cancelled: a worker of that pool skips them so no lag stays behind. */
    void drainCancelled(Variant v) throws Exception {
        String group = Topics.workerGroup("gpu");
        Service worker = start(v, "worker", "ingest-cleanup", false, "--pool", "gpu");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, need("FAIRPIX_KAFKA_BOOTSTRAP")))) {
            long left = IsolationBench.awaitLag(admin, group, Topics.jobs("gpu"), Duration.ofMinutes(3));
            if (left > 0) log("the gpu pool's queue still has %d jobs of lag after 3 min", left);
        } finally {
            worker.stop();
        }
    }

    // ---------------------------------------------------------------- services

    /** A fairpix service process of one variant, with a JFR recording when {@code profile}. */
    record Service(Process process, int port, Path log, Path jfr) {
        void stop() throws InterruptedException {
            process.destroy(); // SIGTERM: graceful stop, and the JFR recording is written
            if (!process.waitFor(60, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
        }
    }

    Service start(Variant v, String command, String label, boolean profile, String... more) throws Exception {
        profile &= jfr;
        int port = freePort();
        Path log = logDir.resolve(label + "-" + v.name() + ".log");
        Path jfr = profile ? logDir.resolve(label + "-" + v.name() + ".jfr") : null;
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
        if (profile) {
            Files.deleteIfExists(jfr);
            cmd.add("-XX:StartFlightRecording=filename=" + jfr + ",settings=profile,dumponexit=true");
        }
        // A variant may add JVM options (JAVA_OPTS=-Xlog:jit+compilation=debug:file=...), e.g. to see what the JIT does.
        String opts = v.settings().getOrDefault("JAVA_OPTS", "");
        if (!opts.isBlank()) cmd.addAll(List.of(opts.trim().split("\\s+")));
        cmd.addAll(List.of("-jar", v.jar().toString(), command, "--port", Integer.toString(port)));
        cmd.addAll(List.of(more));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        pb.environment().putAll(v.settings());
        pb.environment().put("FAIRPIX_ADMIN_TOKEN", adminToken);
        pb.environment().putIfAbsent("OPENCV_IO_MAX_IMAGE_PIXELS", "100000000");
        // The drain queues its whole backlog before a worker runs: the ingest's load shedding
        // (overload.backlog.*, docs/overload.md) would refuse most of it.
        pb.environment().putIfAbsent("FAIRPIX_BACKLOG_SOFT_SECONDS", "0");
        pb.environment().putIfAbsent("FAIRPIX_BACKLOG_HARD_SECONDS", "0");
        Process p = pb.start();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            if (!p.isAlive()) throw new IllegalStateException(v.name() + " " + command + " exited; see " + log);
            if (System.nanoTime() > until) {
                p.destroyForcibly();
                throw new IllegalStateException(v.name() + " " + command + " not ready in 90 s; see " + log);
            }
            try {
                if (http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/ready")).GET().build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) break;
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        return new Service(p, port, log, jfr);
    }

    String createTenant(Service ingest, String id, String pool) throws Exception {
        String body = Json.write(Map.of("id", id, "weight", 1, "rate", 100_000, "burst", 1_000_000, "maxConcurrentJobs", 1_000_000,
                "dailyQuota", 100_000_000, "pool", pool));
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ingest.port() + "/admin/v1/tenants"))
                .header("Authorization", "Bearer " + adminToken).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) throw new IllegalStateException("create tenant " + id + ": " + r.statusCode() + " " + r.body());
        tenants.add(id);
        return Json.mapper().readTree(r.body()).get("apiKey").asText();
    }

    /** Uploads {@code data} {@code n} times from {@code concurrency} clients; returns the accepted job ids. */
    List<String> submitMany(Service ingest, String key, byte[] data, int n, int concurrency) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + ingest.port() + "/v1/jobs?spec=" + URLEncoder.encode(SPEC, StandardCharsets.UTF_8));
        List<String> ids = Collections.synchronizedList(new ArrayList<>());
        Map<String, Integer> refusals = new ConcurrentHashMap<>();
        AtomicInteger next = new AtomicInteger();
        runConcurrently(() -> {
            while (next.getAndIncrement() < n) {
                try {
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + key)
                            .header("Content-Type", "image/jpeg").POST(HttpRequest.BodyPublishers.ofByteArray(data)).build(), HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 202) ids.add(Json.mapper().readTree(r.body()).get("id").asText());
                    else refusals.merge(r.statusCode() + " " + r.body().substring(0, Math.min(120, r.body().length())), 1, Integer::sum);
                } catch (Exception e) {
                    refusals.merge(e.toString(), 1, Integer::sum);
                }
            }
        }, concurrency);
        if (!refusals.isEmpty()) log("refused uploads: %s", refusals);
        return ids;
    }

    void cancel(Service ingest, String key, List<String> ids) {
        for (String id : ids) {
            try {
                http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ingest.port() + "/v1/jobs/" + id)).header("Authorization", "Bearer " + key)
                        .DELETE().build(), HttpResponse.BodyHandlers.discarding());
            } catch (Exception ignored) {
                // counted as lag and skipped by the clean-up worker either way
            }
        }
    }

    /** The store as this tree's services build it from the environment (its s3.http-client included). */
    S3ObjectStore s3() {
        need("FAIRPIX_S3_ENDPOINT");
        return S3ObjectStore.from(com.fairpix.core.config.FairpixConfig.load(env, Map.of()));
    }

    void purge() {
        try (S3ObjectStore s3 = s3()) {
            int deleted = s3.deletePrefix(StorageKeys.tenantPrefix("farm-bare-" + run));
            for (String t : tenants) deleted += s3.deletePrefix(StorageKeys.tenantPrefix(t));
            log("deleted %d objects of the run", deleted);
        } catch (RuntimeException e) {
            log("could not delete the run's objects: %s", e);
        }
    }

    Map<String, Long> stackPids() {
        Map<String, Long> pids = new LinkedHashMap<>();
        for (String s : List.of("s3proxy", "kafka", "redis")) {
            try {
                pids.put(s, Long.parseLong(Files.readString(stateDir.resolve("run/" + s + ".pid")).trim()));
            } catch (IOException | NumberFormatException e) {
                log("no PID for %s under %s (its CPU is not counted)", s, stateDir);
            }
        }
        return pids;
    }

    private String need(String name) {
        String v = env.get(name);
        if (v == null || v.isBlank()) throw new IllegalStateException(name + " is not set: source .fairpix/stack.env (scripts/stack up)");
        return v;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static void log(String format, Object... args) {
        System.err.printf(Locale.ROOT, "[bench-farm] " + format + "%n", args);
    }

    // ---------------------------------------------------------------- CPU split

    /** Samples, every 100 ms, the CPU ticks of the service, its threads (by name) and the stack's servers. */
    static final class CpuSampler {
        record Sample(long atMillis, Map<String, Long> processes, Map<String, Long> threads) {}

        private final long service;
        private final Map<String, Long> stack;
        private final List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
        private final Thread thread;
        private volatile boolean stopped;

        CpuSampler(long service, Map<String, Long> stack) {
            this.service = service;
            this.stack = stack;
            this.thread = Thread.ofPlatform().daemon().name("bench-cpu-sampler").start(() -> {
                while (!stopped) {
                    samples.add(sample());
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        void stop() throws InterruptedException {
            stopped = true;
            thread.join();
            samples.add(sample());
        }

        private Sample sample() {
            Map<String, Long> processes = new LinkedHashMap<>();
            processes.put("service JVM", ticks(Path.of("/proc/" + service + "/stat")));
            // The service's child processes (processor JVMs and their sandboxes), summed: the work a
            // worker with worker.processors=process does there is counted beside its own.
            long children = 0;
            int processors = 0;
            long rss = 0;
            for (ProcessHandle h : ProcessHandle.of(service).map(p -> p.descendants().toList()).orElse(List.of())) {
                children += ticks(Path.of("/proc/" + h.pid() + "/stat"));
                if (h.info().command().map(c -> c.endsWith("/java")).orElse(false)) {
                    long r = rssBytes(h.pid());
                    if (r > 0) {
                        processors++;
                        rss += r;
                    }
                }
            }
            if (processors > 0 || children > 0) processes.put("processors", children);
            if (processors > 0) {
                processorCount = processors;
                processorRss = Math.max(processorRss, rss / processors);
            }
            stack.forEach((name, pid) -> processes.put(name, ticks(Path.of("/proc/" + pid + "/stat"))));
            Map<String, Long> threads = new TreeMap<>();
            try (var tasks = Files.list(Path.of("/proc/" + service + "/task"))) {
                for (Path t : tasks.toList()) {
                    try {
                        String name = Files.readString(t.resolve("comm")).trim().replaceAll("[-_#]?\\d+$", "").replaceAll("-\\d+-", "-");
                        threads.merge(name, ticks(t.resolve("stat")), Long::sum);
                    } catch (IOException gone) {
                        // the thread ended between list and read
                    }
                }
            } catch (IOException gone) {
                // the process ended
            }
            return new Sample(System.currentTimeMillis(), processes, threads);
        }

        /** Processor JVMs (the service's java descendants) at the last sample that saw any. */
        volatile int processorCount;
        /** The largest mean resident set per processor JVM over the samples, bytes. */
        volatile long processorRss;

        /** VmRSS of a process, bytes; 0 when unknown. */
        static long rssBytes(long pid) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                    if (line.startsWith("VmRSS:")) return Long.parseLong(line.substring(6).trim().split("\\s+")[0]) * 1024;
                }
            } catch (IOException | RuntimeException e) {
                // gone
            }
            return 0;
        }

        /** utime + stime, in ticks; 0 when the process is gone. */
        static long ticks(Path stat) {
            try {
                String s = Files.readString(stat);
                String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
                return Long.parseLong(f[11]) + Long.parseLong(f[12]);
            } catch (IOException | RuntimeException e) {
                return 0;
            }
        }

        /** CPU per unit of work between two instants (the samples nearest inside them). */
        CpuSplit between(long fromMillis, long toMillis, int units) {
            List<Sample> s = new ArrayList<>(samples);
            Sample a = s.stream().filter(x -> x.atMillis() >= fromMillis).findFirst().orElse(s.get(0));
            Sample b = s.reversed().stream().filter(x -> x.atMillis() <= toMillis).findFirst().orElse(s.get(s.size() - 1));
            double seconds = Math.max(0.001, (b.atMillis() - a.atMillis()) / 1000.0);
            // Units done between the two samples, pro rata to the measured window.
            double work = units * seconds / Math.max(0.001, (toMillis - fromMillis) / 1000.0);
            return new CpuSplit(diff(a.processes(), b.processes(), work), diff(a.threads(), b.threads(), work), seconds, Map.of(), 0);
        }

        private static Map<String, Double> diff(Map<String, Long> a, Map<String, Long> b, double work) {
            Map<String, Double> out = new LinkedHashMap<>();
            b.forEach((k, v) -> {
                double ms = (v - a.getOrDefault(k, 0L)) * 1000.0 / CLK_TCK / work;
                if (ms >= 0.05) out.put(k, ms);
            });
            return out;
        }
    }

    /**
     * CPU ms per unit of work by process and by service thread group, and the service's JFR
     * samples by library.
     */
    record CpuSplit(Map<String, Double> processes, Map<String, Double> threads, double seconds, Map<String, Integer> javaSamples, int opencvNative) {
        /** Adds the recording's samples taken inside the window ({@code fromMillis}..{@code toMillis}). */
        CpuSplit withJfr(Path jfr, long fromMillis, long toMillis) {
            if (jfr == null || !Files.exists(jfr)) return this;
            Map<String, Integer> java = new TreeMap<>();
            int opencv = 0;
            try (RecordingFile f = new RecordingFile(jfr)) {
                while (f.hasMoreEvents()) {
                    RecordedEvent e = f.readEvent();
                    String type = e.getEventType().getName();
                    if (e.getStackTrace() == null) continue;
                    long at = e.getStartTime().toEpochMilli();
                    if (at < fromMillis || at > toMillis) continue;
                    if (type.equals("jdk.ExecutionSample")) java.merge(library(e.getStackTrace().getFrames()), 1, Integer::sum);
                    else if (type.equals("jdk.NativeMethodSample") && !e.getStackTrace().getFrames().isEmpty()
                            && e.getStackTrace().getFrames().get(0).getMethod().getType().getName().startsWith("org.opencv.")) opencv++;
                }
            } catch (IOException e) {
                log("cannot read %s: %s", jfr, e);
            }
            return new CpuSplit(processes, threads, seconds, java, opencv);
        }

        /** The library of the innermost frame outside the JDK (the code that asked for the work). */
        static String library(List<RecordedFrame> frames) {
            for (RecordedFrame fr : frames) {
                String c = fr.getMethod().getType().getName();
                if (c.startsWith("java.") || c.startsWith("javax.") || c.startsWith("jdk.") || c.startsWith("sun.") || c.startsWith("com.sun.")) continue;
                if (c.startsWith("software.amazon.awssdk") || c.startsWith("org.apache.http") || c.startsWith("org.apache.hc")) return "S3 client (AWS SDK + HTTP)";
                if (c.startsWith("org.apache.kafka")) return "Kafka client";
                if (c.startsWith("com.fasterxml.jackson")) return "JSON (Jackson)";
                if (c.startsWith("redis.clients") || c.startsWith("org.apache.commons.pool2")) return "Redis client (Jedis)";
                if (c.startsWith("org.opencv")) return "OpenCV (Java side)";
                if (c.startsWith("com.fairpix.core.image.ImageHeader")) return "fairpix ImageHeader";
                if (c.startsWith("com.fairpix")) return "fairpix other";
                if (c.startsWith("io.micrometer")) return "metrics (Micrometer)";
                if (c.startsWith("io.javalin") || c.startsWith("org.eclipse.jetty")) return "HTTP server (Javalin/Jetty)";
                if (c.startsWith("ch.qos") || c.startsWith("org.slf4j")) return "logging";
                if (c.startsWith("io.github.resilience4j")) return "resilience4j";
                return "other: " + c.substring(0, c.lastIndexOf('.') < 0 ? c.length() : c.lastIndexOf('.'));
            }
            return "JDK only";
        }

        List<String> lines(String label, String unit) {
            List<String> out = new ArrayList<>();
            out.add("CPU split, " + label + " (ms of CPU per " + unit + ", over " + String.format(Locale.ROOT, "%.1f", seconds) + " s)");
            out.add("  processes: " + format(processes));
            Map<String, Double> top = new LinkedHashMap<>();
            threads.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(8).forEach(e -> top.put(e.getKey(), e.getValue()));
            out.add("  service threads: " + format(top));
            if (!javaSamples.isEmpty()) {
                int total = javaSamples.values().stream().mapToInt(Integer::intValue).sum();
                StringBuilder sb = new StringBuilder("  JFR Java samples (" + total + "): ");
                javaSamples.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(9)
                        .forEach(e -> sb.append(String.format(Locale.ROOT, "%s %.1f%%, ", e.getKey(), 100.0 * e.getValue() / total)));
                sb.append("OpenCV native samples ").append(opencvNative);
                out.add(sb.toString());
            }
            return out;
        }

        private static String format(Map<String, Double> m) {
            StringBuilder sb = new StringBuilder();
            double sum = 0;
            for (var e : m.entrySet()) {
                sb.append(String.format(Locale.ROOT, "%s %.2f, ", e.getKey(), e.getValue()));
                sum += e.getValue();
            }
            return sb.append(String.format(Locale.ROOT, "total %.2f", sum)).toString();
        }
    }
}
