package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.core.resilience.Dependency;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import com.fasterxml.jackson.databind.JsonNode;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import redis.clients.jedis.UnifiedJedis;

/**
 * Tenant A holds a valid API key and attacks: oversized and endless uploads (chunked and declared),
 * oversized spec parts, tiny images asking for huge outputs, specs over every limit, reused
 * idempotency keys, slow uploads that would hold the node's connections. Each attack gets its precise
 * status and problem type, the ingest heap stays bounded (under 16 MiB of growth for a 400 MB body,
 * below the tenant's 25 MiB upload limit, so buffering the allowed body would show). Then A repeats
 * the refused attacks from two connections for 10 s, until its refusal budget answers 429 before the
 * body. Through it all tenant B keeps a steady load (two clients, a job each at a time) and its jobs
 * keep completing, with every node ready and no circuit breaker opened. B's submit → done p99 over
 * its jobs that overlapped an attack is asserted within 1.5× of its p99 over the jobs that did not,
 * taken in quiet windows interleaved with the attacks in the same run (before the first, after each,
 * after the last), so that the machine's own drift and stalls fall on both sides alike; each side
 * has hundreds of jobs, so a p99 is not just the slowest job. B is paused during the two 400 MB
 * uploads (they measure heap) and while a second node starts.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(HostileTenantIT.AttackerPriority.class)
class HostileTenantIT {
    static final String THUMB = "{\"variants\":{\"thumb\":[{\"op\":\"resize\",\"width\":64,\"height\":64,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"webp\",\"quality\":60}]}}";
    static final long MIB = 1024 * 1024;

    static FairpixConfig config;
    static IngestApi ingest;
    static Worker worker;
    static Farm.Client client;
    static UnifiedJedis redis;
    static String tenantA;
    static String keyA;
    static String keyB;
    static String tenantIdB;
    static byte[] photoB;
    /** A's images, made before B's baseline: the attacker's own CPU is not the farm's. */
    static byte[] otherBytes;
    static byte[] raceA;
    /** B's load: this many clients, each submitting a job and awaiting it, then the next 20 ms later. */
    static final int B_CLIENTS = 2;
    /**
     * B's jobs before any is counted: in a fresh JVM the ingest and worker answer slower until
     * their code is compiled (measured: the p99 of B's first 120-job windows 115-152 ms, against
     * 27-38 ms a few hundred jobs later), which would inflate the first quiet window.
     */
    static final int B_WARM_UP = 400;
    /** B's jobs in each quiet window: before the first attack, after each attack test, after the last. */
    static final int B_QUIET_BEFORE = 200;
    static final int B_QUIET_BETWEEN = 20;
    static final int B_QUIET_AFTER = 200;
    /**
     * A job of B's submitted within this long after an attack ended counts as attacked, not quiet
     * (what an attack leaves behind, a compilation, a file's pages, falls on the attack's side).
     */
    static final long AFTERMATH_MS = 1_000;

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

    /** Every job of B's, warm-up included, in the order they finished. */
    static final List<BJob> bJobs = new CopyOnWriteArrayList<>();
    static final List<AttackWindow> attackWindows = new CopyOnWriteArrayList<>();
    /** B's jobs submitted before this (epoch ms) are its warm-up. */
    static volatile long measuredFrom = Long.MAX_VALUE;
    static final AtomicBoolean bRunning = new AtomicBoolean(true);
    static final AtomicBoolean bPaused = new AtomicBoolean();
    /** B's clients between deciding to submit and having their answer. */
    static final java.util.concurrent.atomic.AtomicInteger bBusy = new java.util.concurrent.atomic.AtomicInteger();
    static final List<String> bFailures = new CopyOnWriteArrayList<>();
    static final List<Thread> bLoops = new CopyOnWriteArrayList<>();

    /**
     * A's HTTP client for the attack under way, made on the attacker's thread so that its selector
     * thread runs at the attacker's priority (and B's requests do not queue behind A's in one
     * client's selector, as they would on a client shared with B).
     */
    static volatile Farm.Client attacker;

    /** Marks the one test that is not an attack: it runs on the JUnit thread at normal priority. */
    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    @java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
    @interface NotAnAttack {}

    /**
     * Runs each attack on a thread of its own at nice 19, so that what it starts (its HTTP clients'
     * selector threads, its pools) inherits that priority. The attacker's client would be on another
     * machine; here it shares two cores with the farm, and its own CPU (making and sending hundreds of
     * megabytes) would otherwise count as the farm's. The farm's threads keep their priorities: all
     * the farm's work for an attack (reading, refusing, storing, processing it) still competes with B.
     * Where nice cannot be set (not Linux, no JNA), the attack runs at normal priority, which is only
     * harder on B.
     */
    static final class AttackerPriority implements InvocationInterceptor {
        @Override
        public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<java.lang.reflect.Method> call,
                                        ExtensionContext context) throws Throwable {
            if (call.getExecutable().isAnnotationPresent(NotAnAttack.class)) {
                invocation.proceed();
                return;
            }
            warmCommonPool();
            java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
            String test = call.getExecutable().getName();
            long start = System.currentTimeMillis();
            Thread thread = Thread.ofPlatform().name("attacker-" + test).start(() -> {
                com.fairpix.worker.consume.CpuPriority.lowerCurrentThread(ATTACKER_NICE);
                try {
                    attacker = new Farm.Client(ingest.port());
                    invocation.proceed();
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            thread.join();
            long end = System.currentTimeMillis();
            attackWindows.add(new AttackWindow(start, end, test));
            if (failure.get() != null) throw failure.get();
            awaitQuietJobs(end + AFTERMATH_MS, B_QUIET_BETWEEN);
        }
    }

    static final int ATTACKER_NICE = 19;

    /** A pool of the attacker's, its threads named so that the check on priorities knows them. */
    static ExecutorService attackerPool(int threads) {
        return Executors.newFixedThreadPool(threads, Thread.ofPlatform().daemon().name("attacker-pool-", 0).factory());
    }

    /**
     * Starts every worker of the common fork-join pool from this (normal-priority) thread. The JDK's
     * HTTP client hands work to that pool, and a worker it started from an attacker's thread would
     * inherit nice 19 and keep it for whoever uses the pool next; it keeps idle workers 60 s.
     */
    static void warmCommonPool() throws InterruptedException {
        int n = java.util.concurrent.ForkJoinPool.getCommonPoolParallelism();
        java.util.concurrent.CountDownLatch all = new java.util.concurrent.CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            java.util.concurrent.ForkJoinPool.commonPool().execute(() -> {
                all.countDown();
                try {
                    all.await(5, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        all.await(5, java.util.concurrent.TimeUnit.SECONDS);
    }

    @BeforeAll
    static void start() throws Exception {
        // A rerun of a failed test (failsafe's rerunFailingTestsCount) starts the class again in this JVM.
        bRunning.set(true);
        bPaused.set(false);
        bJobs.clear();
        bLoops.clear();
        bFailures.clear();
        attackWindows.clear();
        measuredFrom = Long.MAX_VALUE;
        refused.set(0);
        throttled.set(0);
        config = Farm.config();
        ingest = IngestApi.start(config);
        worker = Worker.start(config.with(Setting.WORKER_THREADS, "2").with(Setting.WORKER_PORT, "0"), 0);
        client = new Farm.Client(ingest.port());
        redis = com.fairpix.core.redis.Redis.connect(config.get(Setting.REDIS_URL));
        tenantA = Farm.tenantId("it-hostile-a");
        keyA = client.createTenant(tenantA, Map.of());
        tenantIdB = Farm.tenantId("it-hostile-b");
        keyB = client.createTenant(tenantIdB, Map.of());
        photoB = Farm.smallJpeg(640, 480, 7);
        otherBytes = Farm.smallJpeg(640, 480, 8);
        // For the duplicate race: one real job for the worker, the size of B's own. (With a 5.3-megapixel
        // photo, 17 times B's pixels, B's jobs that overlap its decode share the two cores with it
        // and take 3-6 times their baseline: fair sharing with a legitimate job, not an attack; the
        // flood of legitimate jobs is IsolationIT's.)
        raceA = Farm.smallJpeg(640, 480, 9);
        // B's steady load from here to the end: warm-up first, then its first quiet window.
        for (int c = 0; c < B_CLIENTS; c++) {
            bLoops.add(Thread.ofPlatform().daemon().name("tenant-b-" + c).start(HostileTenantIT::tenantBLoop));
        }
        awaitBJobs(j -> true, B_WARM_UP);
        measuredFrom = System.currentTimeMillis();
        awaitQuietJobs(measuredFrom, B_QUIET_BEFORE);
    }

    /** One of B's clients: a job at a time, each booked with its submit and done times. */
    static void tenantBLoop() {
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

    /** Waits (at most 2 minutes) until {@code n} of B's jobs match {@code which}. */
    static void awaitBJobs(java.util.function.Predicate<BJob> which, int n) throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (bJobs.stream().filter(which).count() < n && System.nanoTime() < deadline && bFailures.isEmpty()) Thread.sleep(50);
        assertThat(bFailures).isEmpty();
        assertThat(bJobs.stream().filter(which).count()).as("B's jobs").isGreaterThanOrEqualTo(n);
    }

    /** A quiet window: waits until {@code n} of B's jobs submitted from {@code from} (epoch ms) on are done. */
    static void awaitQuietJobs(long from, int n) throws InterruptedException {
        long wait = from - System.currentTimeMillis();
        if (wait > 0) Thread.sleep(wait);
        awaitBJobs(j -> j.created() >= from, n);
    }

    @AfterAll
    static void stop() throws Exception {
        bRunning.set(false);
        for (Thread t : bLoops) t.join(30_000);
        if (worker != null) worker.stop(Duration.ofSeconds(5));
        if (ingest != null) ingest.close();
        if (redis != null) redis.close();
    }

    static void pauseB() throws InterruptedException {
        bPaused.set(true);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (bBusy.get() > 0 && System.nanoTime() < deadline) Thread.sleep(10);
    }

    /** Where a job's submit → done went: accepted → queued (S3 put, record, Kafka ack), → started, → finished; ms. */
    static String phases(JsonNode job) {
        Instant created = Instant.parse(job.get("createdAt").asText());
        Instant queued = Instant.parse(job.get("queuedAt").asText());
        Instant started = Instant.parse(job.get("startedAt").asText());
        Instant finished = Instant.parse(job.get("finishedAt").asText());
        return "enqueue " + Duration.between(created, queued).toMillis() + ", wait " + Duration.between(queued, started).toMillis()
                + ", run " + Duration.between(started, finished).toMillis();
    }

    /** One job of tenant B, submitted and awaited: its DONE record. */
    static JsonNode runBJob() throws Exception {
        HttpResponse<String> r = client.submitMultipart(keyB, photoB, "b.jpg", THUMB);
        if (r.statusCode() != 202) throw new AssertionError("tenant B's submission: " + r.statusCode() + " " + r.body());
        String id = Json.mapper().readTree(r.body()).get("id").asText();
        JsonNode job = client.awaitTerminal(keyB, id, Duration.ofSeconds(60));
        if (!job.get("state").asText().equals("DONE")) throw new AssertionError("tenant B's job " + id + ": " + job);
        return job;
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

    static JsonNode assertProblem(int status, String slug, HttpResponse<String> r) throws Exception {
        contract(r);
        Map<String, String> h = new java.util.HashMap<>();
        r.headers().map().forEach((k, v) -> h.put(k, v.get(0)));
        return assertProblem(status, slug, r.statusCode(), h, r.body());
    }

    static String jobsPath(String spec) {
        return "POST /v1/jobs?spec=" + URLEncoder.encode(spec, StandardCharsets.UTF_8) + " HTTP/1.1";
    }

    /**
     * Heap in use, bytes, sampled every 2 ms on a thread of its own while {@code work} runs; returns
     * the peak over the starting level (and prints it beside the JVM's direct buffers and the bytes
     * all threads allocated meanwhile).
     */
    static long heapGrowth(ThrowingRunnable work) throws Exception {
        var memory = ManagementFactory.getMemoryMXBean();
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        var direct = ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).findFirst().orElseThrow();
        System.gc();
        Thread.sleep(200);
        long base = memory.getHeapMemoryUsage().getUsed();
        long directBase = direct.getMemoryUsed();
        long allocatedBase = threads.getTotalThreadAllocatedBytes();
        AtomicLong directPeak = new AtomicLong(directBase);
        AtomicLong peak = new AtomicLong(base);
        AtomicBoolean sampling = new AtomicBoolean(true);
        Thread sampler = Thread.ofPlatform().daemon().name("attacker-sampler").start(() -> {
            while (sampling.get()) {
                peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                directPeak.accumulateAndGet(direct.getMemoryUsed(), Math::max);
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        try {
            work.run();
        } finally {
            sampling.set(false);
            sampler.join();
        }
        System.out.printf("HostileTenantIT: heap %.1f MB before, peak +%.1f MB; direct buffers peak +%.1f MB; %.1f MB allocated by all threads meanwhile%n",
                base / (double) MIB, (peak.get() - base) / (double) MIB, (directPeak.get() - directBase) / (double) MIB,
                (threads.getTotalThreadAllocatedBytes() - allocatedBase) / (double) MIB);
        return peak.get() - base;
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    // ---- uploads ----

    @Test
    @Order(1)
    void a400MbChunkedUploadIs413AtTheLimitWithTheHeapBounded() throws Exception {
        pauseB(); // B's own allocations would blur the figure, and the GC before measuring would stall its job
        try {
            RawHttp.Answer[] answer = new RawHttp.Answer[1];
            long growth = heapGrowth(() -> answer[0] = RawHttp.chunked(ingest.port(), jobsPath(THUMB),
                    Map.of("Authorization", "Bearer " + keyA, "Content-Type", "image/png"), new byte[0], 400 * MIB, new byte[0]));
            JsonNode p = assertProblem(413, "payload-too-large", answer[0].status(), answer[0].headers(), answer[0].body());
            assertThat(p.get("limit").asLong()).isEqualTo(25 * MIB);
            // The refusal cost A's budget the 25 MiB the node read, not one token: 100 − 26, refilling
            // at 10 tokens/s since (a refusal counted without its bytes would leave 99).
            assertThat(ingest.refusals().tokens(tenantA)).as("A's refusal budget after a 25 MiB refusal").isLessThan(90.0);
            System.out.printf("HostileTenantIT: 400 MB chunked raw upload: 413 after %d MB sent; ingest heap grew %.1f MB at peak%n",
                    answer[0].bytesSentBeforeAnswer() / MIB, growth / (double) MIB);
            // On loopback the client sends a few hundred MB/s, so how far it got says little about where the
            // server stopped reading; what must hold is that the 413 came before the body ended.
            assertThat(answer[0].bytesSentBeforeAnswer()).as("the answer comes while the body is still being sent").isLessThan(400 * MIB);
            assertThat(growth).as("heap growth under the 25 MiB upload limit").isLessThan(16 * MIB);
        } finally {
            bPaused.set(false);
        }
    }

    @Test
    @Order(2)
    void a400MbChunkedMultipartImageIs413WithTheHeapBounded() throws Exception {
        pauseB();
        try {
            String boundary = "hostile" + UUID.randomUUID().toString().replace("-", "");
            byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"spec\"\r\n\r\n" + THUMB + "\r\n--" + boundary
                    + "\r\nContent-Disposition: form-data; name=\"image\"; filename=\"zeros.png\"\r\nContent-Type: image/png\r\n\r\n").getBytes(StandardCharsets.UTF_8);
            byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
            RawHttp.Answer[] answer = new RawHttp.Answer[1];
            long growth = heapGrowth(() -> answer[0] = RawHttp.chunked(ingest.port(), "POST /v1/jobs HTTP/1.1",
                    Map.of("Authorization", "Bearer " + keyA, "Content-Type", "multipart/form-data; boundary=" + boundary), head, 400 * MIB, tail));
            assertProblem(413, "payload-too-large", answer[0].status(), answer[0].headers(), answer[0].body());
            System.out.printf("HostileTenantIT: 400 MB chunked multipart image: 413 after %d MB sent; ingest heap grew %.1f MB at peak%n",
                    answer[0].bytesSentBeforeAnswer() / MIB, growth / (double) MIB);
            assertThat(answer[0].bytesSentBeforeAnswer()).isLessThan(400 * MIB);
            assertThat(growth).as("heap growth under the 25 MiB upload limit").isLessThan(16 * MIB);
        } finally {
            bPaused.set(false);
        }
    }

    @Test
    @Order(3)
    void aDeclared400MbBodyIs413BeforeTheBodyIsRead() throws Exception {
        // A client sending 400 MB: the answer comes after its first 64 KiB, from Content-Length alone.
        long t0 = System.nanoTime();
        RawHttp.Answer a = RawHttp.declaredOnly(ingest.port(), jobsPath(THUMB), Map.of("Authorization", "Bearer " + keyA, "Content-Type", "image/png"), 400 * MIB, 64 * 1024);
        assertProblem(413, "payload-too-large", a.status(), a.headers(), a.body());
        // A client that asks first (Expect: 100-continue) gets the 413 instead of 100 Continue, before sending anything.
        RawHttp.Answer b = RawHttp.declaredOnly(ingest.port(), jobsPath(THUMB),
                Map.of("Authorization", "Bearer " + keyA, "Content-Type", "image/png", "Expect", "100-continue"), 400 * MIB, 0);
        assertProblem(413, "payload-too-large", b.status(), b.headers(), b.body());
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    @Order(4)
    void aMultipartSpecPartOver64KiBIs413SpecTooLargeNot500() throws Exception {
        String spec = "{\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":64}]},\"pad\":\"" + "x".repeat(300_000) + "\"}";
        JsonNode p = assertProblem(413, "spec-too-large", attacker.submitMultipart(keyA, photoB, "a.jpg", spec));
        assertThat(p.get("limit").asInt()).isEqualTo(65_536);
        // the same spec in the query string: the request line is over Jetty's header limit, refused before
        // any handler (read while the request is still being sent: Jetty answers and closes mid-request)
        RawHttp.Answer q = RawHttp.chunked(ingest.port(), jobsPath(spec.substring(0, 70_000)),
                Map.of("Authorization", "Bearer " + keyA, "Content-Type", "image/jpeg"), photoB, 0, new byte[0]);
        assertThat(q.status()).as("Jetty's refusal of the request line: URI or header too long").isIn(414, 431);
    }

    @Test
    @Order(5)
    void slowUploadsHoldOnlyTheTenantsOwnSlots() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < 8; i++) held.add(holdUpload());
            // Until all 8 are in flight on the server: one that was answered (a 429 while an earlier
            // request of A's still held a slot) is replaced.
            for (int round = 0; round < 20; round++) {
                Thread.sleep(100);
                boolean allHeld = true;
                for (int i = 0; i < held.size(); i++) {
                    if (held.get(i).getInputStream().available() > 0) {
                        held.get(i).close();
                        held.set(i, holdUpload());
                        allHeld = false;
                    }
                }
                if (allHeld) break;
            }
            long deadline = System.nanoTime() + 5_000_000_000L;
            HttpResponse<String> ninth = attacker.submitRaw(keyA, photoB, "image/jpeg", THUMB);
            while (ninth.statusCode() != 429 && System.nanoTime() < deadline) {
                Thread.sleep(50); // the held uploads may not all have reached the handler yet
                ninth = attacker.submitRaw(keyA, photoB, "image/jpeg", THUMB);
            }
            if (ninth.statusCode() != 429) {
                // Say what became of the held uploads, if the server answered any of them.
                StringBuilder what = new StringBuilder();
                for (Socket s : held) {
                    s.setSoTimeout(200);
                    try {
                        RawHttp.Answer a = RawHttp.read(s);
                        what.append(a.status()).append(' ').append(a.body()).append('\n');
                    } catch (RuntimeException e) {
                        what.append("still open (").append(e.getCause() == null ? e : e.getCause().getClass().getSimpleName()).append(")\n");
                    }
                }
                throw new AssertionError("the 9th upload got " + ninth.statusCode() + "; the held ones:\n" + what);
            }
            JsonNode p = assertProblem(429, "too-many-uploads", ninth);
            assertThat(p.get("limit").asInt()).isEqualTo(8);
            assertThat(ninth.headers().firstValue("Retry-After")).hasValue("1");
            // Meanwhile tenant B uploads as usual.
            assertThat(client.submitMultipart(keyB, photoB, "b.jpg", THUMB).statusCode()).isEqualTo(202);
        } finally {
            for (Socket s : held) s.close();
        }
        // The abandoned uploads free their slots (each ends as a 400 upload-incomplete on the server).
        long deadline = System.nanoTime() + 10_000_000_000L;
        int status;
        do {
            Thread.sleep(50);
            status = attacker.submitRaw(keyA, photoB, "image/jpeg", THUMB).statusCode();
        } while (status == 429 && System.nanoTime() < deadline);
        assertThat(status).isEqualTo(202);
    }

    @Test
    @Order(6)
    void malformedMultipartIs400NeverA500() throws Exception {
        String boundary = "hostile-parts";
        StringBuilder parts = new StringBuilder();
        for (int i = 0; i < 50; i++) parts.append("--").append(boundary).append("\r\nContent-Disposition: form-data; name=\"p").append(i).append("\"\r\n\r\nx\r\n");
        parts.append("--").append(boundary).append("--\r\n");
        HttpResponse<String> many = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ingest.port() + "/v1/jobs"))
                .header("Authorization", "Bearer " + keyA).header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofString(parts.toString())).build(), HttpResponse.BodyHandlers.ofString());
        assertProblem(400, "invalid-multipart", many);
        HttpResponse<String> noBoundary = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ingest.port() + "/v1/jobs"))
                .header("Authorization", "Bearer " + keyA).header("Content-Type", "multipart/form-data")
                .POST(HttpRequest.BodyPublishers.ofString("junk")).build(), HttpResponse.BodyHandlers.ofString());
        assertProblem(400, "invalid-multipart", noBoundary);
    }

    @Test
    @Order(7)
    void aWatermarkOfAnotherTenantAndAnInvalidIdempotencyKeyAre400() throws Exception {
        String steal = "{\"variants\":{\"w\":[{\"op\":\"watermark\",\"key\":\"tenants/" + tenantB() + "/originals/x.jpg\"}]}}";
        JsonNode p = assertProblem(400, "invalid-spec", attacker.submitMultipart(keyA, photoB, "a.jpg", steal));
        assertThat(p.get("errors").toString()).contains("own prefix");
        assertProblem(400, "invalid-idempotency-key", submitWithKey(keyA, photoB, THUMB, "x".repeat(300)));
    }

    static String tenantB() {
        return tenantIdB;
    }

    static Socket holdUpload() throws java.io.IOException {
        return RawHttp.holdOpen(ingest.port(), jobsPath(THUMB), Map.of("Authorization", "Bearer " + keyA, "Content-Type", "image/jpeg"), 1024);
    }

    // ---- specs and outputs ----

    static byte[] onePixelPng() {
        com.fairpix.worker.process.OpenCv.ensureLoaded();
        return Farm.encode(new org.opencv.core.Mat(1, 1, org.opencv.core.CvType.CV_8UC3, new org.opencv.core.Scalar(10, 20, 30)), ".png");
    }

    @Test
    @Order(10)
    void aTinyPngAskingFor268MegapixelsIsRefusedAtSubmit() throws Exception {
        byte[] png = onePixelPng();
        assertThat(png.length).isLessThan(100);
        String fill = "{\"variants\":{\"big\":[{\"op\":\"resize\",\"width\":16384,\"height\":16384,\"fit\":\"fill\"},{\"op\":\"encode\",\"format\":\"png\",\"compression\":0}]}}";
        JsonNode p = assertProblem(400, "invalid-spec", attacker.submitRaw(keyA, png, "image/png", fill));
        assertThat(p.get("errors").toString()).contains("268435456 pixels");
        // Upscaling through contain is only known from the source's size: 422 at submit, before any work.
        String contain = "{\"variants\":{\"big\":[{\"op\":\"resize\",\"width\":16000,\"height\":16000},{\"op\":\"encode\",\"format\":\"png\",\"compression\":0}],"
                + "\"ok\":[{\"op\":\"resize\",\"width\":64}]}}";
        JsonNode q = assertProblem(422, "output-too-large", attacker.submitMultipart(keyA, png, "a.png", contain));
        assertThat(q.get("errors")).hasSize(1);
        assertThat(q.get("errors").get(0).asText()).startsWith("variants.big: makes an image of 256000000 pixels");
    }

    @Test
    @Order(11)
    void aSpecOverEveryLimitListsEveryProblem() throws Exception {
        StringBuilder variants = new StringBuilder();
        for (int i = 0; i < 17; i++) variants.append(i == 0 ? "" : ",").append("\"v").append(i).append("\":[{\"op\":\"flip\"}]");
        String ops = "{\"op\":\"flip\"},".repeat(20);
        String spec = "{\"variants\":{" + variants + ",\"many\":[" + ops + "{\"op\":\"flop\"}],"
                + "\"blurry\":[{\"op\":\"blur\",\"sigma\":1000}],"
                + "\"marked\":[{\"op\":\"watermark\",\"key\":\"tenants/" + tenantA + "/" + "k".repeat(2000) + "\"}],"
                + "\"forged\":[{\"op\":\"watermark\",\"key\":\"tenants/" + tenantA + "/a.png\\r\\nINFO forged \\u001b[31m\"}]}}";
        JsonNode p = assertProblem(400, "invalid-spec", attacker.submitMultipart(keyA, photoB, "a.jpg", spec));
        String errors = p.get("errors").toString();
        assertThat(p.get("errors").size()).isGreaterThanOrEqualTo(5);
        assertThat(errors).contains("at most 16 variants", "at most 16 operations", "sigma must be a number 0.3–50", "at most 512", "control characters");
    }

    @Test
    @Order(12)
    void problemDetailsAreUtf8() throws Exception {
        HttpResponse<byte[]> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ingest.port() + "/v1/jobs?spec="
                        + URLEncoder.encode("{\"variants\":{\"thümb✓\":[{\"op\":\"flip\"}]}}", StandardCharsets.UTF_8)))
                .header("Authorization", "Bearer " + keyA).header("Content-Type", "image/jpeg")
                .POST(HttpRequest.BodyPublishers.ofByteArray(photoB)).build(), HttpResponse.BodyHandlers.ofByteArray());
        OpenApiContract.of("ingest").check("POST", "/v1/jobs", r.statusCode(), r.headers().firstValue("Content-Type").orElse(null),
                new String(r.body(), StandardCharsets.UTF_8));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains("thümb✓").doesNotContain("th?mb");
    }

    // ---- idempotency ----

    @Test
    @Order(20)
    void anIdempotencyKeyReplaysOnlyTheSameRequest() throws Exception {
        String key = "idem-" + UUID.randomUUID();
        HttpResponse<String> first = submitWithKey(keyA, photoB, THUMB, key);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
        String id = Json.mapper().readTree(first.body()).get("id").asText();

        HttpResponse<String> again = submitWithKey(keyA, photoB, THUMB, key);
        assertThat(again.statusCode()).isEqualTo(202);
        assertThat(Json.mapper().readTree(again.body()).get("id").asText()).isEqualTo(id);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");

        assertProblem(422, "idempotency-key-reused", submitWithKey(keyA, otherBytes, THUMB, key));
        String pngSpec = THUMB.replace("\"webp\",\"quality\":60", "\"png\"");
        assertProblem(422, "idempotency-key-reused", submitWithKey(keyA, photoB, pngSpec, key));
        // Another tenant's key space is its own.
        assertThat(submitWithKey(keyB, photoB, THUMB, key).statusCode()).isEqualTo(202);
    }

    @Test
    @Order(21)
    void aDuplicateWhileTheFirstIsInFlightIs409() throws Exception {
        // A claim whose job record is not written yet, as the first request leaves it while it is being accepted.
        String key = "idem-" + UUID.randomUUID();
        redis.setex(RedisKeys.idempotency(tenantA, key), 60, com.fairpix.core.job.JobIds.next(Clock.systemUTC()));
        JsonNode p = assertProblem(409, "idempotency-in-flight", submitWithKey(keyA, photoB, THUMB, key));
        assertThat(p.get("detail").asText()).contains("still being processed");

        // Real concurrent duplicates: whatever their interleaving, one job is accepted, never two.
        String raced = "idem-" + UUID.randomUUID();
        ExecutorService pool = attackerPool(6);
        try {
            List<Future<HttpResponse<String>>> fs = new ArrayList<>();
            for (int i = 0; i < 6; i++) fs.add(pool.submit(() -> submitWithKey(keyA, raceA, THUMB, raced)));
            Set<String> ids = new HashSet<>();
            int conflicts = 0;
            for (Future<HttpResponse<String>> f : fs) {
                HttpResponse<String> r = f.get();
                if (r.statusCode() == 409) {
                    assertProblem(409, "idempotency-in-flight", r);
                    conflicts++;
                } else {
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                    ids.add(Json.mapper().readTree(r.body()).get("id").asText());
                }
            }
            assertThat(ids).hasSize(1);
            System.out.printf("HostileTenantIT: 6 concurrent duplicates: 1 job, %d answered 409 while it was in flight%n", conflicts);
        } finally {
            pool.shutdownNow();
        }
    }

    static HttpResponse<String> submitWithKey(String apiKey, byte[] image, String spec, String idempotencyKey) throws Exception {
        return Farm.checked("ingest", HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ingest.port() + "/v1/jobs?spec="
                        + URLEncoder.encode(spec, StandardCharsets.UTF_8)))
                .header("Authorization", "Bearer " + apiKey).header("Content-Type", "image/jpeg").header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofByteArray(image)).build(), HttpResponse.BodyHandlers.ofString()));
    }

    // ---- secrets ----

    @Test
    @Order(30)
    void adminReadsNeverShowAWebhookSecret() throws Exception {
        String c = Farm.tenantId("it-hostile-c");
        HttpResponse<String> created = client.send("POST", "/admin/v1/tenants", Json.write(Map.of("id", c)));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(Json.mapper().readTree(created.body()).path("tenant").path("webhookSecret").asText()).as("shown once, on create").startsWith("whsec_");
        List<HttpResponse<String>> reads = List.of(
                client.send("GET", "/admin/v1/tenants?limit=1000", null),
                client.send("GET", "/admin/v1/tenants/" + c, null),
                client.send("PATCH", "/admin/v1/tenants/" + c, "{\"weight\":2}"),
                client.send("POST", "/admin/v1/tenants/" + c + "/suspend", null),
                client.send("POST", "/admin/v1/tenants/" + c + "/activate", null),
                client.send("DELETE", "/admin/v1/tenants/" + c, null));
        for (HttpResponse<String> r : reads) {
            assertThat(r.statusCode()).as(r.request().method() + " " + r.request().uri() + ": " + r.body()).isEqualTo(200);
            assertThat(r.body()).as(r.request().method() + " " + r.request().uri()).doesNotContain("webhookSecret\"", "whsec_");
        }
        assertThat(Json.mapper().readTree(reads.get(1).body()).get("webhookSecretSet").asBoolean()).isTrue();
    }

    @Test
    @Order(31)
    void metricsFollowTheirSettingAndAWeakAdminTokenStopsStartUp() throws Exception {
        pauseB(); // starting a second node in this JVM is the test's own load, not tenant A's
        try {
            metricsAndAdminToken();
        } finally {
            bPaused.set(false);
        }
    }

    private void metricsAndAdminToken() throws Exception {
        assertThatThrownBy(() -> IngestApi.start(Farm.config().with(Setting.ADMIN_TOKEN, "change-me")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_ADMIN_TOKEN");
        String token = "metrics-" + UUID.randomUUID();
        try (IngestApi node = IngestApi.start(Farm.config().with(Setting.METRICS_TOKEN, token).with(Setting.METRICS_PORT, "0"))) {
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> onServicePort = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertProblem(404, "not-found", onServicePort);
            URI metrics = URI.create("http://127.0.0.1:" + node.metricsPort() + "/metrics");
            assertProblem(401, "unauthorized", http.send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString()));
            HttpResponse<String> scraped = Farm.checked("ingest", http.send(HttpRequest.newBuilder(metrics).header("Authorization", "Bearer " + token).build(),
                    HttpResponse.BodyHandlers.ofString()));
            assertThat(scraped.statusCode()).isEqualTo(200);
            assertThat(scraped.body()).contains("jvm_memory_used_bytes");
        }
    }

    // ---- all of it at once, for a while ----

    /** How long the sustained attack lasts, and from how many connections of A's at once. */
    static final Duration SUSTAINED = Duration.ofSeconds(10);
    static final int ATTACKERS = 2;

    @Test
    @Order(90)
    void aSustainedMixOfRefusedAttacksIsAnsweredAndThenThrottledBeforeTheBody() throws Exception {
        // Each attack above answers once; a hostile tenant repeats them. Here ATTACKERS connections of
        // A's cycle through them for SUSTAINED while B keeps its load: the 400 MB chunked body (the
        // ingest reads 25 MiB of it each time before its 413), a declared 400 MB body, oversized spec
        // parts, malformed multipart, specs over every limit, tiny images asking for huge outputs, an
        // idempotency key reused for other bytes. Each gets its precise answer until A's refusal
        // budget on the node is spent (ingest.tenant-refusal-burst 100 tokens, a refusal costing 1 +
        // 1 per MiB read, 10 tokens/s back); after that, 429 too-many-refusals before the body is read.
        String reused = "idem-" + UUID.randomUUID();
        assertThat(submitWithKey(keyA, photoB, THUMB, reused).statusCode()).isEqualTo(202);
        List<ThrowingRunnable> attacks = List.of(
                () -> {
                    RawHttp.Answer a = RawHttp.chunked(ingest.port(), jobsPath(THUMB),
                            Map.of("Authorization", "Bearer " + keyA, "Content-Type", "image/png"), new byte[0], 400 * MIB, new byte[0]);
                    expect(413, "payload-too-large", a.status(), a.headers(), a.body());
                },
                () -> {
                    RawHttp.Answer a = RawHttp.declaredOnly(ingest.port(), jobsPath(THUMB), Map.of("Authorization", "Bearer " + keyA, "Content-Type", "image/png"), 400 * MIB, 64 * 1024);
                    expect(413, "payload-too-large", a.status(), a.headers(), a.body());
                },
                () -> {
                    String spec = "{\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":64}]},\"pad\":\"" + "x".repeat(300_000) + "\"}";
                    expect(413, "spec-too-large", attacker.submitMultipart(keyA, photoB, "a.jpg", spec));
                },
                () -> expect(400, "invalid-multipart", HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ingest.port() + "/v1/jobs"))
                        .header("Authorization", "Bearer " + keyA).header("Content-Type", "multipart/form-data")
                        .POST(HttpRequest.BodyPublishers.ofString("junk")).build(), HttpResponse.BodyHandlers.ofString())),
                () -> expect(400, "invalid-spec", attacker.submitMultipart(keyA, photoB, "a.jpg",
                        "{\"variants\":{\"w\":[{\"op\":\"watermark\",\"key\":\"tenants/" + tenantB() + "/originals/x.jpg\"}]}}")),
                () -> expect(400, "invalid-spec", attacker.submitRaw(keyA, onePixelPng(), "image/png",
                        "{\"variants\":{\"big\":[{\"op\":\"resize\",\"width\":16384,\"height\":16384,\"fit\":\"fill\"},{\"op\":\"encode\",\"format\":\"png\",\"compression\":0}]}}")),
                () -> expect(422, "output-too-large", attacker.submitMultipart(keyA, onePixelPng(), "a.png",
                        "{\"variants\":{\"big\":[{\"op\":\"resize\",\"width\":16000,\"height\":16000}]}}")),
                () -> expect(400, "invalid-spec", attacker.submitMultipart(keyA, photoB, "a.jpg",
                        "{\"variants\":{\"blurry\":[{\"op\":\"blur\",\"sigma\":1000}],\"marked\":[{\"op\":\"watermark\",\"key\":\"tenants/" + tenantA + "/" + "k".repeat(2000) + "\"}]}}")),
                () -> expect(422, "idempotency-key-reused", submitWithKey(keyA, otherBytes, THUMB, reused)));
        long end = System.nanoTime() + SUSTAINED.toNanos();
        ExecutorService pool = attackerPool(ATTACKERS);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < ATTACKERS; t++) {
                int offset = t;
                fs.add(pool.submit(() -> {
                    for (int i = offset; System.nanoTime() < end; i++) attacks.get(i % attacks.size()).run();
                    return null;
                }));
            }
            for (Future<?> f : fs) f.get();
        } finally {
            pool.shutdownNow();
        }
        System.out.printf("HostileTenantIT: sustained attack, %d s from %d connections: %d precise refusals, %d answered 429 too-many-refusals before the body%n",
                SUSTAINED.toSeconds(), ATTACKERS, refused.get(), throttled.get());
        assertThat(refused.get()).as("precise answers before the budget ran out").isGreaterThanOrEqualTo(attacks.size());
        assertThat(throttled.get()).as("the refusal budget stopped the loop").isPositive();
        // Held a second each before their 429 (ingest.refusal-hold-ms), two connections make about
        // 20 in 10 s; answered at once, they looped ~4,000 times.
        assertThat(throttled.get()).as("throttled requests are held, not answered in a loop").isLessThanOrEqualTo(ATTACKERS * SUSTAINED.toSeconds() * 2);
        // A gets its precise answers back once it stops: the debt of its last 25 MiB refusals (26
        // tokens each) is repaid at 10 tokens/s, and the answer says when to come back.
        String bad = "{\"variants\":{\"t\":[{\"op\":\"spin\"}]}}";
        long deadline = System.nanoTime() + 15_000_000_000L;
        HttpResponse<String> back = attacker.submitMultipart(keyA, photoB, "a.jpg", bad);
        while (back.statusCode() == 429 && System.nanoTime() < deadline) {
            long retryAfter = Long.parseLong(back.headers().firstValue("Retry-After").orElseThrow());
            assertThat(retryAfter).isBetween(1L, 11L);
            Thread.sleep(retryAfter * 1000);
            back = attacker.submitMultipart(keyA, photoB, "a.jpg", bad);
        }
        assertProblem(400, "invalid-spec", back);
    }
    static final AtomicLong refused = new AtomicLong();
    static final AtomicLong throttled = new AtomicLong();

    /** The attack's precise problem, or 429 too-many-refusals once A's refusal budget is spent; counts which. */
    static void expect(int status, String slug, int gotStatus, Map<String, String> headers, String body) throws Exception {
        if (gotStatus == 429) {
            JsonNode p = assertProblem(429, "too-many-refusals", gotStatus, headers, body);
            assertThat(p.get("limit").asDouble()).isEqualTo(100.0);
            throttled.incrementAndGet();
        } else {
            assertProblem(status, slug, gotStatus, headers, body);
            refused.incrementAndGet();
        }
    }

    /** This test's own HttpClient answers are held to the ingest's OpenAPI document too (Farm.Client's are, as they come). */
    static void contract(HttpResponse<String> r) {
        Farm.checked("ingest", r);
    }

    static void expect(int status, String slug, HttpResponse<String> r) throws Exception {
        contract(r);
        Map<String, String> h = new java.util.HashMap<>();
        r.headers().map().forEach((k, v) -> h.put(k, v.get(0)));
        expect(status, slug, r.statusCode(), h, r.body());
    }

    // ---- and through it all ----

    @Test
    @Order(100)
    @NotAnAttack
    void tenantBKeptItsServiceEveryNodeIsReadyAndNoBreakerOpened() throws Exception {
        // The attacks are the tests before this one: failsafe's rerun of this method alone has none
        // to measure (rerun the class).
        assertThat(attackWindows).as("attack windows recorded by the tests before this one in the same run").isNotEmpty();
        // The last quiet window, then B stops; each job of B's counted (after its warm-up) is
        // attacked if it overlapped an attack (or its aftermath), quiet if not.
        awaitQuietJobs(attackWindows.stream().mapToLong(AttackWindow::end).max().orElse(0) + AFTERMATH_MS, B_QUIET_AFTER);
        bRunning.set(false);
        for (Thread t : bLoops) t.join(60_000);
        assertThat(bFailures).isEmpty();
        List<BJob> counted = bJobs.stream().filter(j -> j.created() >= measuredFrom).toList();
        List<BJob> attacked = counted.stream().filter(j -> attackWindows.stream().anyMatch(j::overlaps)).toList();
        List<BJob> quiet = counted.stream().filter(j -> !attacked.contains(j)).toList();
        List<Long> attackedMillis = attacked.stream().map(BJob::millis).toList();
        List<Long> quietMillis = quiet.stream().map(BJob::millis).toList();
        long quietP99 = p99(quietMillis);
        long attackedP99 = p99(attackedMillis);
        System.out.printf("HostileTenantIT: tenant B submit→done (after %d warm-up jobs): quiet %d jobs, p50 %d / p90 %d / p99 %d ms;"
                        + " during attacks %d jobs, p50 %d / p90 %d / p99 %d ms: p99 ratio %.2f%n",
                bJobs.size() - counted.size(), quiet.size(), percentile(quietMillis, 0.5), percentile(quietMillis, 0.9), quietP99,
                attacked.size(), percentile(attackedMillis, 0.5), percentile(attackedMillis, 0.9), attackedP99, (double) attackedP99 / quietP99);
        attacked.stream().sorted(java.util.Comparator.comparingLong(BJob::millis).reversed()).limit(6).forEach(j -> System.out.printf(
                "HostileTenantIT: slowest B jobs during attacks: %d ms (%s) during %s%n", j.millis(), j.phases(),
                attackWindows.stream().filter(j::overlaps).map(AttackWindow::test).distinct().toList()));
        quiet.stream().sorted(java.util.Comparator.comparingLong(BJob::millis).reversed()).limit(3).forEach(j -> System.out.printf(
                "HostileTenantIT: slowest quiet B jobs: %d ms (%s)%n", j.millis(), j.phases()));
        assertThat(attacked).as("B's jobs during the attacks").hasSizeGreaterThanOrEqualTo(150);
        assertThat(quiet).as("B's jobs in the quiet windows").hasSizeGreaterThanOrEqualTo(B_QUIET_BEFORE + B_QUIET_AFTER);
        assertThat(attackedP99).as("B's p99 during the attacks against its p99 in the quiet windows, ms").isLessThanOrEqualTo((long) (1.5 * quietP99));
        // The body of the distribution too, not only its tail (measured with the budget: 1.03-1.16×).
        assertThat(percentile(attackedMillis, 0.9)).as("B's p90 during the attacks against its p90 in the quiet windows, ms")
                .isLessThanOrEqualTo((long) (1.5 * percentile(quietMillis, 0.9)));
        for (Dependency d : Dependency.values()) {
            CircuitBreaker cb = ingest.overload().breakers().get(d);
            assertThat(cb.getState()).as("ingest breaker " + d.id()).isEqualTo(CircuitBreaker.State.CLOSED);
            assertThat(cb.getMetrics().getNumberOfFailedCalls()).as("failed calls counted against " + d.id()).isZero();
        }
        // No farm thread took the attacker's priority (that would make A's work cheap for B): the
        // threads at nice 19 are the attacker's own (its clients' threads and pools).
        System.out.println("HostileTenantIT: threads at nice " + ATTACKER_NICE + " at the end: " + threadsAtNice(ATTACKER_NICE));
        assertThat(threadsAtNice(ATTACKER_NICE)).allMatch(n -> n.startsWith("HttpClient-") || n.startsWith("attacker-"));
        HttpClient http = HttpClient.newHttpClient();
        for (int port : new int[] {ingest.port(), worker.httpPort()}) {
            HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/ready")).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (port == ingest.port()) Farm.checked("ingest", ready);
            assertThat(ready.statusCode()).as("ready on port " + port + ": " + ready.body()).isEqualTo(200);
        }
    }

    /** Names of this JVM's threads running at {@code nice} or above (from /proc/self/task; empty where there is none). */
    static List<String> threadsAtNice(int nice) throws java.io.IOException {
        List<String> names = new ArrayList<>();
        java.nio.file.Path tasks = java.nio.file.Path.of("/proc/self/task");
        if (!java.nio.file.Files.isDirectory(tasks)) return names;
        try (var dirs = java.nio.file.Files.list(tasks)) {
            for (java.nio.file.Path t : dirs.toList()) {
                Integer n = com.fairpix.worker.consume.CpuPriority.niceOf(t.resolve("stat"));
                if (n == null || n < nice) continue;
                try {
                    names.add(java.nio.file.Files.readString(t.resolve("comm")).trim());
                } catch (java.io.IOException gone) {
                    // the thread ended while we looked
                }
            }
        }
        return names;
    }

    static long p99(List<Long> millis) {
        return percentile(millis, 0.99);
    }

    /** The nearest-rank percentile: the smallest sample with at least {@code q} of all at or below it. */
    static long percentile(List<Long> millis, double q) {
        List<Long> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        return sorted.get((int) Math.ceil(q * sorted.size()) - 1);
    }
}
