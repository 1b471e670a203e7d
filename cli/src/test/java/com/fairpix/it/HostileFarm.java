package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.core.resilience.Dependency;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import com.fairpix.worker.run.CpuPriority;
import com.fasterxml.jackson.databind.JsonNode;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.Socket;
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
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

/**
 * The farm a hostile-tenant test class attacks, with tenant B's service measured around the attacks:
 * {@code @RegisterExtension static final HostileFarm farm = new HostileFarm("uploads");}
 *
 * <p>Before the class: an ingest and a worker (2 threads) on the stack, the class's own attacker
 * tenant A and tenant B. B keeps a steady load from then to the end of the class (two clients, a job
 * each at a time: a 640×480 JPEG → 64×64 WebP). Its first jobs warm the JVM and are not counted
 * ({@link #B_WARM_UP} in a fresh JVM, fewer once earlier classes have run B's path in it); meanwhile
 * a throwaway tenant sends each refused attack of {@link #refusedMix} once, so the first attack of the
 * class does not pay for loading and compiling the ingest's refusal paths while B is measured. Then a
 * quiet window of B's jobs.
 *
 * <p>Each test is an attack: it runs on a thread of its own at nice 19 (see {@link #interceptTestMethod})
 * with a fresh HTTP client of A's ({@link #attacker()}); its window is recorded and followed by a quiet
 * window. After the class: the last quiet window, then each of B's counted jobs is <em>attacked</em> if
 * its submit → done overlapped an attack (or the second after one) and <em>quiet</em> otherwise. The
 * class asserts B's median during its attacks within 1.5× of its quiet median; its samples join the
 * suite's pool, and once every class that measures B has run in this JVM (in any order, a rerun replacing a
 * class's samples) the pool's p99 and p90 are held to the same 1.5× (issue 33: "B's p99 submit → done
 * within 1.5× of its baseline across the hostile suite"). Every ingest breaker stays closed with no
 * failed call, no farm thread took the attacker's priority, the ingest and worker are ready.
 */
final class HostileFarm implements BeforeAllCallback, AfterAllCallback, InvocationInterceptor {
    static final String THUMB = "{\"variants\":{\"thumb\":[{\"op\":\"resize\",\"width\":64,\"height\":64,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"webp\",\"quality\":60}]}}";
    static final long MIB = 1024 * 1024;
    static final int ATTACKER_NICE = 19;

    /** B's load: this many clients, each submitting a job and awaiting it, then the next 20 ms later. */
    static final int B_CLIENTS = 2;
    /**
     * B's jobs in this JVM before any is counted: in a fresh JVM the ingest and worker answer slower
     * until their code is compiled (measured: the p99 of B's first 120-job windows 115-152 ms, against
     * 27-38 ms a few hundred jobs later). Counted over every class's farm, since the code is the JVM's.
     */
    static final int B_WARM_UP = 400;
    /** B's jobs uncounted on each new farm whatever ran before (its connections, the worker's partitions). */
    static final int B_FARM_WARM_UP = 60;
    /** B's jobs in each quiet window: before the class's first attack, after each, after its last. */
    static final int B_QUIET_BEFORE = 100;
    static final int B_QUIET_BETWEEN = 20;
    static final int B_QUIET_AFTER = 100;
    /**
     * A class's attacked jobs at least (a median over fewer says little). A class holds B's median to
     * the bound, not its p90: over one class's jobs, on a shared machine, the p90 ratio read 0.62-1.81
     * (HostileIdempotencyIT, 50-72 jobs) and 0.89-1.54 (HostileSustainedIT, 245-470 jobs, failing one
     * run of nine while others' work loaded the machine), the median 0.90-1.20. The tail is the
     * suite's pool's, over ≥ 300 jobs a side.
     */
    static final int B_MIN_ATTACKED = 20;
    /** The suite's pool: its p99 is held to the bound with at least this many jobs a side. */
    static final int B_SUITE_MIN = 300;
    /** How often B polls its job: its jobs take ~20 ms; polling every 100 ms halved its samples per second. */
    static final Duration B_POLL = Duration.ofMillis(20);
    /**
     * A job of B's submitted within this long after an attack ended counts as attacked, not quiet
     * (what an attack leaves behind, a compilation, a file's pages, falls on the attack's side).
     */
    static final long AFTERMATH_MS = 1_000;
    /** The hostile classes that measure B: the suite's pool is complete when each has run in this JVM. */
    static final Set<String> MEASURING_CLASSES = Set.of("HostileUploadsIT", "HostileRequestsIT", "HostileIdempotencyIT", "HostileSustainedIT");

    /** B's jobs done in this JVM, every farm together. */
    private static final AtomicInteger B_JOBS_IN_JVM = new AtomicInteger();
    /** Each measuring class's latest samples in this JVM, by class name. */
    private static final Map<String, Samples> SUITE = new ConcurrentHashMap<>();

    /** One of B's jobs: submitted and done (epoch ms, from its record) and where its time went. */
    record BJob(long created, long finished, String phases) {
        long millis() {
            return finished - created;
        }

        boolean overlaps(AttackWindow w) {
            return created < w.end() + AFTERMATH_MS && finished > w.start();
        }
    }

    /** When an attack test ran, epoch ms. */
    record AttackWindow(long start, long end, String test) {}

    /** B's submit → done, ms, of its jobs during the attacks and in the quiet windows. */
    record Samples(List<Long> attacked, List<Long> quiet) {
        static Samples pooled(Iterable<Samples> all) {
            List<Long> a = new ArrayList<>();
            List<Long> q = new ArrayList<>();
            for (Samples s : all) {
                a.addAll(s.attacked());
                q.addAll(s.quiet());
            }
            return new Samples(a, q);
        }

        String describe() {
            return String.format("quiet %d jobs, p50 %d / p90 %d / p99 %d ms; during attacks %d jobs, p50 %d / p90 %d / p99 %d ms:"
                            + " p50 ratio %.2f, p90 ratio %.2f, p99 ratio %.2f",
                    quiet.size(), percentile(quiet, 0.5), percentile(quiet, 0.9), percentile(quiet, 0.99),
                    attacked.size(), percentile(attacked, 0.5), percentile(attacked, 0.9), percentile(attacked, 0.99),
                    ratio(0.5), ratio(0.9), ratio(0.99));
        }

        double ratio(double q) {
            return (double) percentile(attacked, q) / percentile(quiet, q);
        }

        void assertWithin(double factor, double q, String what) {
            assertThat(percentile(attacked, q)).as("B's p%d during the attacks against its p%d in the quiet windows (%s), ms",
                    Math.round(q * 100), Math.round(q * 100), what).isLessThanOrEqualTo((long) (factor * percentile(quiet, q)));
        }
    }

    /** An attack, or a step of one. */
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    private final String theme;
    private FairpixConfig config;
    private IngestApi ingest;
    private Worker worker;
    private Farm.Client client;
    private String tenantA;
    private String keyA;
    private String tenantB;
    private String keyB;
    private byte[] photoB;
    /** A's HTTP client for the attack under way, made on the attacker's thread (see {@link #interceptTestMethod}). */
    private volatile Farm.Client attacker;

    /** Every job of B's, warm-up included, in the order they finished. */
    private final List<BJob> bJobs = new CopyOnWriteArrayList<>();
    private final List<AttackWindow> attackWindows = new CopyOnWriteArrayList<>();
    /** B's jobs submitted before this (epoch ms) are its warm-up. */
    private volatile long measuredFrom = Long.MAX_VALUE;
    private final AtomicBoolean bRunning = new AtomicBoolean();
    private final AtomicBoolean bPaused = new AtomicBoolean();
    /** B's clients between deciding to submit and having their answer. */
    private final AtomicInteger bBusy = new AtomicInteger();
    private final List<String> bFailures = new CopyOnWriteArrayList<>();
    private final List<Thread> bLoops = new CopyOnWriteArrayList<>();

    /** @param theme names the class's attacker tenant ({@code it-hostile-<theme>-a-…}) */
    HostileFarm(String theme) {
        this.theme = theme;
    }

    IngestApi ingest() {
        return ingest;
    }

    int port() {
        return ingest.port();
    }

    /** An admin client over the ingest, at normal priority (B's own submissions go through it too). */
    Farm.Client client() {
        return client;
    }

    /** The attacker's client for the attack under way, made on its thread at nice 19. */
    Farm.Client attacker() {
        return attacker;
    }

    String tenantA() {
        return tenantA;
    }

    String keyA() {
        return keyA;
    }

    String tenantB() {
        return tenantB;
    }

    String keyB() {
        return keyB;
    }

    /** B's image: A sends it too where a valid image is needed. */
    byte[] photoB() {
        return photoB;
    }

    FairpixConfig config() {
        return config;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        // A rerun of a failed test (failsafe's rerunFailingTestsCount) starts the class again with this instance.
        bJobs.clear();
        bLoops.clear();
        bFailures.clear();
        attackWindows.clear();
        measuredFrom = Long.MAX_VALUE;
        bRunning.set(true);
        bPaused.set(false);
        config = Farm.config();
        ingest = IngestApi.start(config);
        worker = Worker.start(config.with(Setting.WORKER_THREADS, "2").with(Setting.WORKER_PORT, "0"), 0);
        client = new Farm.Client(ingest.port());
        tenantA = Farm.tenantId("it-hostile-" + theme + "-a");
        keyA = client.createTenant(tenantA, Map.of());
        tenantB = Farm.tenantId("it-hostile-" + theme + "-b");
        keyB = client.createTenant(tenantB, Map.of());
        photoB = Farm.smallJpeg(640, 480, 7);
        int warmUp = Math.max(B_FARM_WARM_UP, B_WARM_UP - B_JOBS_IN_JVM.get());
        for (int c = 0; c < B_CLIENTS; c++) bLoops.add(Thread.ofPlatform().daemon().name("tenant-b-" + c).start(this::tenantBLoop));
        long rehearsed;
        try {
            rehearsed = asAttacker("rehearsal", this::rehearse);
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
        awaitBJobs(j -> true, warmUp);
        measuredFrom = Math.max(System.currentTimeMillis(), rehearsed + AFTERMATH_MS);
        awaitQuietJobs(measuredFrom, B_QUIET_BEFORE);
    }

    /**
     * Each refused attack of the sustained mix once, from a throwaway tenant of its own (its refusal
     * budget is not A's), during B's warm-up: the ingest's refusal paths are loaded and compiled
     * before B is measured, on every farm, not during a class's first attack (a warm-up of the
     * attack paths was suggested by HostileTenantIT's p99 flips; its effect alone is not measured).
     */
    private void rehearse() throws Exception {
        String key = client.createTenant(Farm.tenantId("it-hostile-" + theme + "-rehearsal"), Map.of());
        String reused = "idem-" + UUID.randomUUID();
        assertThat(submitWithKey(key, photoB, THUMB, reused).statusCode()).isEqualTo(202);
        for (ThrowingRunnable attack : refusedMix(key, reused, new Tally())) attack.run();
    }

    /** One of B's clients: a job at a time, each booked with its submit and done times. */
    private void tenantBLoop() {
        while (bRunning.get()) {
            try {
                if (bPaused.get()) {
                    Thread.sleep(20);
                    continue;
                }
                bBusy.incrementAndGet();
                try {
                    if (bPaused.get()) continue;
                    JsonNode job = runBJob();
                    bJobs.add(new BJob(Instant.parse(job.get("createdAt").asText()).toEpochMilli(),
                            Instant.parse(job.get("finishedAt").asText()).toEpochMilli(), phases(job)));
                    B_JOBS_IN_JVM.incrementAndGet();
                } finally {
                    bBusy.decrementAndGet();
                }
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            } catch (Throwable e) {
                bFailures.add(e.toString());
            }
        }
    }

    /** One job of tenant B, submitted and awaited: its DONE record. */
    private JsonNode runBJob() throws Exception {
        HttpResponse<String> r = client.submitMultipart(keyB, photoB, "b.jpg", THUMB);
        if (r.statusCode() != 202) throw new AssertionError("tenant B's submission: " + r.statusCode() + " " + r.body());
        String id = Json.mapper().readTree(r.body()).get("id").asText();
        JsonNode job = client.awaitTerminal(keyB, id, Duration.ofSeconds(60), B_POLL);
        if (!job.get("state").asText().equals("DONE")) throw new AssertionError("tenant B's job " + id + ": " + job);
        return job;
    }

    /** Where a job's submit → done went: accepted → queued (S3 put, record, Kafka ack), → started, → finished; ms. */
    private static String phases(JsonNode job) {
        Instant created = Instant.parse(job.get("createdAt").asText());
        Instant queued = Instant.parse(job.get("queuedAt").asText());
        Instant started = Instant.parse(job.get("startedAt").asText());
        Instant finished = Instant.parse(job.get("finishedAt").asText());
        return "enqueue " + Duration.between(created, queued).toMillis() + ", wait " + Duration.between(queued, started).toMillis()
                + ", run " + Duration.between(started, finished).toMillis();
    }

    /** Waits (at most 2 minutes) until {@code n} of B's jobs match {@code which}. */
    private void awaitBJobs(Predicate<BJob> which, int n) throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (bJobs.stream().filter(which).count() < n && System.nanoTime() < deadline && bFailures.isEmpty()) Thread.sleep(50);
        assertThat(bFailures).isEmpty();
        assertThat(bJobs.stream().filter(which).count()).as("B's jobs").isGreaterThanOrEqualTo(n);
    }

    /** A quiet window: waits until {@code n} of B's jobs submitted from {@code from} (epoch ms) on are done. */
    private void awaitQuietJobs(long from, int n) throws InterruptedException {
        long wait = from - System.currentTimeMillis();
        if (wait > 0) Thread.sleep(wait);
        awaitBJobs(j -> j.created() >= from, n);
    }

    /**
     * Runs {@code work} with B paused (a measurement B's allocations would blur, a second node's
     * start that is the test's own load and not A's), then resumes B.
     */
    void withBPaused(ThrowingRunnable work) throws Exception {
        bPaused.set(true);
        try {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (bBusy.get() > 0 && System.nanoTime() < deadline) Thread.sleep(10);
            work.run();
        } finally {
            bPaused.set(false);
        }
    }

    /**
     * Runs each attack on a thread of its own at nice 19, so that what it starts (its HTTP clients'
     * selector threads, its pools) inherits that priority. The attacker's client would be on another
     * machine; here it shares two cores with the farm, and its own CPU (making and sending hundreds of
     * megabytes) would otherwise count as the farm's. The farm's threads keep their priorities: all
     * the farm's work for an attack (reading, refusing, storing, processing it) still competes with B.
     * Where nice cannot be set (not Linux, no JNA), the attack runs at normal priority, which is only
     * harder on B. The attack's window is recorded, and a quiet window follows it.
     */
    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call, ExtensionContext context)
            throws Throwable {
        String test = call.getExecutable().getName();
        long start = System.currentTimeMillis();
        long end;
        try {
            end = asAttacker(test, invocation::proceed);
        } finally {
            attackWindows.add(new AttackWindow(start, System.currentTimeMillis(), test));
        }
        awaitQuietJobs(end + AFTERMATH_MS, B_QUIET_BETWEEN);
    }

    /** A test's invocation, or the rehearsal. */
    private interface Attack {
        void run() throws Throwable;
    }

    /** Runs {@code work} on a thread of A's at nice 19 with a client of its own; returns when it ended, epoch ms. */
    private long asAttacker(String name, Attack work) throws Throwable {
        warmCommonPool();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().name("attacker-" + name).start(() -> {
            CpuPriority.lowerCurrentThread(ATTACKER_NICE);
            try {
                attacker = new Farm.Client(ingest.port());
                work.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        thread.join();
        long end = System.currentTimeMillis();
        if (failure.get() != null) throw failure.get();
        return end;
    }

    /**
     * Starts every worker of the common fork-join pool from this (normal-priority) thread. The JDK's
     * HTTP client hands work to that pool, and a worker it started from an attacker's thread would
     * inherit nice 19 and keep it for whoever uses the pool next; it keeps idle workers 60 s.
     */
    private static void warmCommonPool() throws InterruptedException {
        int n = ForkJoinPool.getCommonPoolParallelism();
        CountDownLatch all = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            ForkJoinPool.commonPool().execute(() -> {
                all.countDown();
                try {
                    all.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        all.await(5, TimeUnit.SECONDS);
    }

    /** A pool of the attacker's, its threads named so that the check on priorities knows them. */
    static ExecutorService attackerPool(int threads) {
        return Executors.newFixedThreadPool(threads, Thread.ofPlatform().daemon().name("attacker-pool-", 0).factory());
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            if (measuredFrom != Long.MAX_VALUE) assertServiceKept(context.getRequiredTestClass().getSimpleName());
        } finally {
            bRunning.set(false);
            for (Thread t : bLoops) t.join(30_000);
            if (worker != null) worker.stop(Duration.ofSeconds(5));
            if (ingest != null) ingest.close();
        }
    }

    /** Through the class's attacks: B's service, the breakers, the priorities, readiness. */
    private void assertServiceKept(String testClass) throws Exception {
        // The last quiet window, then B stops; each job of B's counted (after its warm-up) is
        // attacked if it overlapped an attack (or its aftermath), quiet if not. The window is
        // longer where the class's attacks outlasted its quiet windows (the sustained attack): a
        // class weighs as much on the quiet side of the suite's pool as on the attacked side, so a
        // class that ran through a noisy patch of the machine cannot tip the pool either way.
        long lastQuiet = attackWindows.stream().mapToLong(AttackWindow::end).max().orElse(0) + AFTERMATH_MS;
        awaitQuietJobs(lastQuiet, B_QUIET_AFTER);
        List<BJob> done = List.copyOf(bJobs);
        long attackedSoFar = done.stream().filter(j -> j.created() >= measuredFrom && attackWindows.stream().anyMatch(j::overlaps)).count();
        long quietSoFar = done.stream().filter(j -> j.created() >= measuredFrom && attackWindows.stream().noneMatch(j::overlaps)).count();
        long inLastWindow = done.stream().filter(j -> j.created() >= lastQuiet).count();
        if (quietSoFar < attackedSoFar) awaitQuietJobs(lastQuiet, (int) (inLastWindow + attackedSoFar - quietSoFar));
        bRunning.set(false);
        for (Thread t : bLoops) t.join(60_000);
        assertThat(bFailures).isEmpty();
        List<BJob> counted = bJobs.stream().filter(j -> j.created() >= measuredFrom).toList();
        List<BJob> attacked = counted.stream().filter(j -> attackWindows.stream().anyMatch(j::overlaps)).toList();
        List<BJob> quiet = counted.stream().filter(j -> !attacked.contains(j)).toList();
        Samples mine = new Samples(attacked.stream().map(BJob::millis).toList(), quiet.stream().map(BJob::millis).toList());
        System.out.printf("%s: tenant B submit→done (after %d warm-up jobs, %d attack windows): %s%n",
                testClass, bJobs.size() - counted.size(), attackWindows.size(), attacked.isEmpty() ? "no job during the attacks" : mine.describe());
        attacked.stream().sorted(Comparator.comparingLong(BJob::millis).reversed()).limit(4).forEach(j -> System.out.printf(
                "%s: slowest B jobs during attacks: %d ms (%s) during %s%n", testClass, j.millis(), j.phases(),
                attackWindows.stream().filter(j::overlaps).map(AttackWindow::test).distinct().toList()));
        quiet.stream().sorted(Comparator.comparingLong(BJob::millis).reversed()).limit(2).forEach(j -> System.out.printf(
                "%s: slowest quiet B jobs: %d ms (%s)%n", testClass, j.millis(), j.phases()));
        assertThat(attacked).as("B's jobs during the attacks").hasSizeGreaterThanOrEqualTo(B_MIN_ATTACKED);
        assertThat(quiet).as("B's jobs in the quiet windows").hasSizeGreaterThanOrEqualTo(Math.max(B_QUIET_BEFORE + B_QUIET_AFTER, attacked.size()));
        SUITE.put(testClass, mine);
        // The body of the distribution during this class's attacks; its tail is the suite's, below.
        mine.assertWithin(1.5, 0.5, testClass);
        if (SUITE.keySet().containsAll(MEASURING_CLASSES)) {
            Samples suite = Samples.pooled(SUITE.values());
            System.out.printf("Hostile suite: tenant B submit→done over %s: %s%n", new java.util.TreeSet<>(SUITE.keySet()), suite.describe());
            assertThat(suite.attacked()).as("B's jobs during the suite's attacks").hasSizeGreaterThanOrEqualTo(B_SUITE_MIN);
            assertThat(suite.quiet()).as("B's jobs in the suite's quiet windows").hasSizeGreaterThanOrEqualTo(B_SUITE_MIN);
            suite.assertWithin(1.5, 0.99, "the hostile suite");
            suite.assertWithin(1.5, 0.9, "the hostile suite");
        }
        for (Dependency d : Dependency.values()) {
            CircuitBreaker cb = ingest.overload().breakers().get(d);
            assertThat(cb.getState()).as("ingest breaker " + d.id()).isEqualTo(CircuitBreaker.State.CLOSED);
            assertThat(cb.getMetrics().getNumberOfFailedCalls()).as("failed calls counted against " + d.id()).isZero();
        }
        // No farm thread took the attacker's priority (that would make A's work cheap for B): the
        // threads at nice 19 are the attacker's own (its clients' threads and pools).
        List<String> atNice = threadsAtNice(ATTACKER_NICE);
        System.out.println(testClass + ": threads at nice " + ATTACKER_NICE + " at the end: " + atNice);
        assertThat(atNice).allMatch(n -> n.startsWith("HttpClient-") || n.startsWith("attacker-"));
        HttpClient http = HttpClient.newHttpClient();
        for (int port : new int[] {ingest.port(), worker.httpPort()}) {
            HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/ready")).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (port == ingest.port()) Farm.checked("ingest", ready);
            assertThat(ready.statusCode()).as("ready on port " + port + ": " + ready.body()).isEqualTo(200);
        }
    }

    /** Names of this JVM's threads running at {@code nice} or above (from /proc/self/task; empty where there is none). */
    private static List<String> threadsAtNice(int nice) throws IOException {
        List<String> names = new ArrayList<>();
        Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) return names;
        try (var dirs = Files.list(tasks)) {
            for (Path t : dirs.toList()) {
                Integer n = CpuPriority.niceOf(t.resolve("stat"));
                if (n == null || n < nice) continue;
                try {
                    names.add(Files.readString(t.resolve("comm")).trim());
                } catch (IOException gone) {
                    // the thread ended while we looked
                }
            }
        }
        return names;
    }

    /** The nearest-rank percentile: the smallest sample with at least {@code q} of all at or below it. */
    static long percentile(List<Long> millis, double q) {
        List<Long> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        return sorted.get((int) Math.ceil(q * sorted.size()) - 1);
    }

    // ---- what the attacks send and expect ----

    /** A submission of {@code image} with {@code spec} in the query and an Idempotency-Key, on a client of its own. */
    HttpResponse<String> submitWithKey(String apiKey, byte[] image, String spec, String idempotencyKey) throws Exception {
        return Farm.checked("ingest", HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + "/v1/jobs?spec="
                        + URLEncoder.encode(spec, StandardCharsets.UTF_8)))
                .header("Authorization", "Bearer " + apiKey).header("Content-Type", "image/jpeg").header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofByteArray(image)).build(), HttpResponse.BodyHandlers.ofString()));
    }

    /** A multipart POST of {@code apiKey}'s with {@code body} as is, on a client of its own. */
    HttpResponse<String> postMultipart(String apiKey, String contentType, String body) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + "/v1/jobs"))
                .header("Authorization", "Bearer " + apiKey).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static String jobsPath(String spec) {
        return "POST /v1/jobs?spec=" + URLEncoder.encode(spec, StandardCharsets.UTF_8) + " HTTP/1.1";
    }

    /** A raw upload of A's that sends its head and {@code bytes} of body, then holds the connection open. */
    Socket holdUpload() throws IOException {
        return RawHttp.holdOpen(port(), jobsPath(THUMB), Map.of("Authorization", "Bearer " + keyA, "Content-Type", "image/jpeg"), 1024);
    }

    static byte[] onePixelPng() {
        com.fairpix.worker.process.OpenCv.ensureLoaded();
        return Farm.encode(new org.opencv.core.Mat(1, 1, org.opencv.core.CvType.CV_8UC3, new org.opencv.core.Scalar(10, 20, 30)), ".png");
    }

    /** A spec part over {@code spec.max-bytes} (64 KiB). */
    static String oversizedSpec() {
        return "{\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":64}]},\"pad\":\"" + "x".repeat(300_000) + "\"}";
    }

    /** A watermark of {@code otherTenant}'s original: outside the submitting tenant's own prefix. */
    static String watermarkOf(String otherTenant) {
        return "{\"variants\":{\"w\":[{\"op\":\"watermark\",\"key\":\"tenants/" + otherTenant + "/originals/x.jpg\"}]}}";
    }

    /** A 1×1 PNG filled to 16384×16384 and encoded uncompressed: "68 bytes in, 1 GB out". */
    static final String FILL_268_MEGAPIXELS = "{\"variants\":{\"big\":[{\"op\":\"resize\",\"width\":16384,\"height\":16384,\"fit\":\"fill\"},"
            + "{\"op\":\"encode\",\"format\":\"png\",\"compression\":0}]}}";

    /** Counts the mix's answers: the precise refusals, and the 429s once the refusal budget is spent. */
    static final class Tally {
        final AtomicLong refused = new AtomicLong();
        final AtomicLong throttled = new AtomicLong();

        /** The attack's precise problem, or 429 too-many-refusals once the tenant's refusal budget is spent; counts which. */
        void expect(int status, String slug, int gotStatus, Map<String, String> headers, String body) throws Exception {
            if (gotStatus == 429) {
                JsonNode p = assertProblem(429, "too-many-refusals", gotStatus, headers, body);
                assertThat(p.get("limit").asDouble()).isEqualTo(100.0);
                throttled.incrementAndGet();
            } else {
                assertProblem(status, slug, gotStatus, headers, body);
                refused.incrementAndGet();
            }
        }

        void expect(int status, String slug, HttpResponse<String> r) throws Exception {
            Farm.checked("ingest", r);
            expect(status, slug, r.statusCode(), headers(r), r.body());
        }
    }

    /**
     * The refused attacks a hostile tenant repeats, each with its precise answer (or the budget's
     * 429): the 400 MB chunked body (the ingest reads 25 MiB of it before its 413), a declared 400 MB
     * body, an oversized spec part, malformed multipart, a watermark of another tenant's original, a
     * tiny image asking for huge outputs (400 and 422), specs over every limit, an idempotency key
     * reused for other bytes ({@code reusedKey}: already used for B's photo by {@code apiKey}). Sent
     * through {@link #attacker()}, so run them on the attacker's thread.
     */
    List<ThrowingRunnable> refusedMix(String apiKey, String reusedKey, Tally tally) {
        byte[] png = onePixelPng();
        byte[] otherBytes = Farm.smallJpeg(640, 480, 8);
        Map<String, String> rawPng = Map.of("Authorization", "Bearer " + apiKey, "Content-Type", "image/png");
        return List.of(
                () -> {
                    RawHttp.Answer a = RawHttp.chunked(port(), jobsPath(THUMB), rawPng, new byte[0], 400 * MIB, new byte[0]);
                    tally.expect(413, "payload-too-large", a.status(), a.headers(), a.body());
                },
                () -> {
                    RawHttp.Answer a = RawHttp.declaredOnly(port(), jobsPath(THUMB), rawPng, 400 * MIB, 64 * 1024);
                    tally.expect(413, "payload-too-large", a.status(), a.headers(), a.body());
                },
                () -> tally.expect(413, "spec-too-large", attacker.submitMultipart(apiKey, photoB, "a.jpg", oversizedSpec())),
                () -> tally.expect(400, "invalid-multipart", postMultipart(apiKey, "multipart/form-data", "junk")),
                () -> tally.expect(400, "invalid-spec", attacker.submitMultipart(apiKey, photoB, "a.jpg", watermarkOf(tenantB))),
                () -> tally.expect(400, "invalid-spec", attacker.submitRaw(apiKey, png, "image/png", FILL_268_MEGAPIXELS)),
                () -> tally.expect(422, "output-too-large", attacker.submitMultipart(apiKey, png, "a.png",
                        "{\"variants\":{\"big\":[{\"op\":\"resize\",\"width\":16000,\"height\":16000}]}}")),
                () -> tally.expect(400, "invalid-spec", attacker.submitMultipart(apiKey, photoB, "a.jpg",
                        "{\"variants\":{\"blurry\":[{\"op\":\"blur\",\"sigma\":1000}],\"marked\":[{\"op\":\"watermark\",\"key\":\"tenants/" + tenantA + "/"
                                + "k".repeat(2000) + "\"}]}}")),
                () -> tally.expect(422, "idempotency-key-reused", submitWithKey(apiKey, otherBytes, THUMB, reusedKey)));
    }

    static JsonNode assertProblem(int status, String slug, int gotStatus, Map<String, String> headers, String body) throws Exception {
        assertThat(gotStatus).as(body).isEqualTo(status);
        String type = headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase("content-type")).map(Map.Entry::getValue).findFirst().orElse("");
        assertThat(type).startsWith("application/problem+json");
        JsonNode p = Json.mapper().readTree(body);
        assertThat(p.get("type").asText()).isEqualTo("https://fairpix.dev/problems/" + slug);
        assertThat(p.get("status").asInt()).isEqualTo(status);
        assertThat(p.get("detail").asText()).isNotBlank();
        return p;
    }

    /** The answer is the problem {@code slug} with {@code status}, and held to the ingest's OpenAPI document. */
    static JsonNode assertProblem(int status, String slug, HttpResponse<String> r) throws Exception {
        Farm.checked("ingest", r);
        return assertProblem(status, slug, r.statusCode(), headers(r), r.body());
    }

    private static Map<String, String> headers(HttpResponse<String> r) {
        Map<String, String> h = new HashMap<>();
        r.headers().map().forEach((k, v) -> h.put(k, v.get(0)));
        return h;
    }
}
