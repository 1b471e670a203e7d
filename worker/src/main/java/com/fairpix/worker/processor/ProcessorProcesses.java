package com.fairpix.worker.processor;

import com.fairpix.core.error.Permanent;
import com.fairpix.core.error.RetryLater;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.os.CpuPriority;
import com.fairpix.worker.process.Assets;
import com.fairpix.worker.process.ImageProcessor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Image work in supervised processor processes ({@code worker.processors=process}): long-lived
 * child JVMs started from the worker's own class path, one job at a time each, kept for the next job.
 * They are started ahead of the work ({@link #prestart}: one per processing thread, when the worker
 * starts) and a processor that died or was dropped is replaced in the background, so a job waits for
 * a processor's start only when none is idle nor starting. A processor runs at the nice value of the
 * thread that uses it (shared threads' jobs in the background, reserved threads' at normal
 * priority), so idle processors are kept per nice value.
 *
 * <p>A processor that dies on a job (a signal, the SIGKILL after {@code worker.job-timeout-seconds},
 * out of memory) costs only that job: it is tried once more on a fresh processor, and a job that
 * killed two processors is FAILED ({@link Permanent}) with the reason of the second death:
 * {@code decoder-crashed}, {@code timeout} or {@code out-of-memory}. The deaths are counted per job
 * id in this worker's memory (the last {@value #REMEMBERED_JOBS} jobs that killed one), not across
 * workers. docs/processors.md.
 */
public final class ProcessorProcesses implements ImageProcessor {
    private static final Logger log = LoggerFactory.getLogger(ProcessorProcesses.class);
    /** Deaths a job may cause; the last one fails it. */
    static final int MAX_DEATHS = 2;
    static final int REMEMBERED_JOBS = 10_000;
    /** The processor's own deadline check gets this long to fail a job cleanly before the SIGKILL. */
    static final Duration KILL_GRACE = Duration.ofSeconds(1);
    /** How long a starting worker waits for its processors' hellos before it consumes anyway. */
    public static final Duration PRESTART_WAIT = Duration.ofSeconds(30);
    /** For the start time a log line reports. */
    private static final java.util.function.LongSupplier NANOS = com.fairpix.core.time.SystemTime.nanos();

    private final ProcessorLauncher launcher;
    private final int slots;
    private final Duration deadline;
    private final Path dir;
    /** The processors' hand-over files' directory, on tmpfs ({@link #SHM}); null: originals go inline. */
    private final Path handover;
    private final ClassData classData;
    private final Map<Integer, Deque<Processor>> idle = new HashMap<>();
    /** Starts under way in the background, per nice value (guarded by this). */
    private final Map<Integer, Integer> starting = new HashMap<>();
    /** Waits for the background starts' hellos (the fork itself happens on the timers' thread). */
    private final java.util.concurrent.ExecutorService starters = Executors.newCachedThreadPool(
            r -> Thread.ofPlatform().daemon().name("fairpix-processor-starter").unstarted(r));
    private final List<Processor> all = new ArrayList<>();
    private final Map<String, Integer> deaths = java.util.Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
            return size() > REMEMBERED_JOBS;
        }
    });
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("fairpix-processor-deadlines").unstarted(r));
    private final AtomicInteger started = new AtomicInteger();
    private volatile boolean closed;
    private final int starterNice;

    /**
     * @param slots    processing slots of the worker: at most this many processors are kept idle
     * @param jobTimeout wall-clock limit of one job in a processor (worker.job-timeout-seconds)
     */
    private ProcessorProcesses(ProcessorLauncher launcher, int slots, Duration jobTimeout, Path dir, Path handover, ClassData classData) {
        // The timers' thread starts every processor: made now, by the worker's starting thread, it has
        // that thread's nice value (a thread inherits its creator's), which `nice -n` then adds to.
        try {
            Integer n = timers.submit(CpuPriority::currentThreadNice).get();
            this.starterNice = n == null ? 0 : n;
        } catch (java.util.concurrent.ExecutionException | InterruptedException e) {
            throw new IllegalStateException("processor starter thread: " + e, e);
        }
        this.launcher = launcher;
        this.slots = slots;
        this.deadline = jobTimeout.plus(KILL_GRACE);
        this.dir = dir;
        this.handover = handover;
        this.classData = classData;
    }

    /**
     * @param slots      the worker's processing threads (shared + reserved): processors kept at most
     * @param maxPixels  worker.max-pixels
     * @param jobTimeout worker.job-timeout-seconds
     * @param nativeMemoryBytes worker.native-memory-bytes: each processor's pixel budget
     * @param memoryMb   worker.processor-memory-mb: address space a processor may add once started; its heap is half of it
     * @param sandbox    run processors under bubblewrap where it works
     */
    public static ProcessorProcesses start(int slots, long maxPixels, Duration jobTimeout, long nativeMemoryBytes, int memoryMb, boolean sandbox) {
        try {
            Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
            sweep(tmp, com.fairpix.core.time.SystemTime.clock());
            Path dir = Files.createTempDirectory(tmp, DIR_PREFIX + ProcessHandle.current().pid() + "-");
            Path lib = com.fairpix.worker.process.OpenCv.extractLibrary();
            ClassData classData = new ClassData(Path.of(System.getProperty("java.io.tmpdir"), "fairpix-processor-cds"), ProcessorLauncher.classPath(),
                    com.fairpix.core.time.SystemTime.clock());
            boolean hooks = Boolean.getBoolean(ProcessorMain.HOOKS_PROPERTY) || "true".equals(System.getenv("FAIRPIX_TEST_PROCESSOR_HOOKS"));
            ProcessorLauncher launcher = new ProcessorLauncher(new ProcessorLauncher.Settings(maxPixels, jobTimeout.toMillis(), nativeMemoryBytes,
                    Math.max(64, memoryMb / 2), memoryMb, sandbox, hooks, true), dir, lib == null ? null : lib.getParent(), classData.dir());
            if (sandbox) ProcessorLauncher.sandboxWorks(); // says once, at start, whether they are sandboxed
            return new ProcessorProcesses(launcher, slots, jobTimeout, dir, handoverDir(), classData);
        } catch (IOException e) {
            throw new IllegalStateException("cannot make the processors' directory: " + e, e);
        }
    }

    @Override
    public Processed process(String jobId, byte[] source, JobSpec spec, Assets assets) throws InterruptedException {
        // Read by the worker: a processor has no access to storage.
        Map<String, byte[]> read = new LinkedHashMap<>();
        for (String key : spec.watermarkKeys()) read.put(key, assets.read(key));
        int nice = currentNice();
        while (true) {
            if (closed) throw stopping();
            if (Thread.currentThread().isInterrupted()) throw new InterruptedException("job " + jobId + " interrupted");
            Processor p = take(nice);
            try {
                Processed done = p.run(jobId, source, spec, read, deadline, timers);
                giveBack(p);
                return done;
            } catch (Processor.Died d) {
                forget(p);
                if (closed) throw stopping();
                int n = deaths.merge(jobId, 1, Integer::sum);
                if (n >= MAX_DEATHS) {
                    deaths.remove(jobId);
                    throw new Permanent(d.reason, d.getMessage() + " (" + n + " processors died on it)");
                }
                log.info("job {}: {}; trying it once more on a fresh processor", jobId, d.getMessage());
            } catch (com.fairpix.core.error.FairpixException e) {
                giveBack(p); // the pipeline's own verdict on the input: the processor is fine
                throw e;
            } catch (RuntimeException e) {
                forget(p); // the protocol went wrong: not a processor to trust with the next job
                throw e;
            }
        }
    }

    /** The calling thread's nice value (0 where unknown), read from /proc at most once a second per thread. */
    private static int currentNice() {
        long[] cached = NICE.get();
        long now = NANOS.getAsLong();
        if (cached[1] == 0 || now - cached[1] > NICE_FOR_NANOS) {
            Integer current = CpuPriority.currentThreadNice();
            cached[0] = current == null ? 0 : Math.max(0, current);
            cached[1] = now == 0 ? 1 : now;
        }
        return (int) cached[0];
    }

    /**
     * Per thread: its nice value and when it was read. Reading /proc/thread-self/stat for every job
     * measured ~0.1-0.3 ms of the worker's CPU per job; a processing thread's nice value is set when
     * it starts, and a change from outside (renice) is seen within a second.
     */
    private static final ThreadLocal<long[]> NICE = ThreadLocal.withInitial(() -> new long[2]);
    private static final long NICE_FOR_NANOS = 1_000_000_000L;

    /** An idle processor of this nice value; else one starting in the background, waited for; else one started now. */
    private Processor take(int nice) throws InterruptedException {
        synchronized (this) {
            long until = NANOS.getAsLong() + Processor.HELLO_TIMEOUT.toNanos();
            while (true) {
                Deque<Processor> q = idle.get(nice);
                while (q != null && !q.isEmpty()) {
                    Processor p = q.pollFirst();
                    if (p.alive()) return p;
                    forgetLocked(p); // died while idle: replaced in the background
                }
                if (closed) throw stopping();
                long left = until - NANOS.getAsLong();
                if (starting.getOrDefault(nice, 0) == 0 || left <= 0) break;
                java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
        return launch(nice);
    }

    /**
     * Starts processors in the background, one per entry of {@code nices} (the nice value of the
     * processing thread it is meant for), so the first jobs find them started.
     *
     * @return completes when every one of them has said hello or failed to start (a failed start is
     *         logged; the job that needs that processor starts one itself)
     */
    public java.util.concurrent.CompletableFuture<Void> prestart(List<Integer> nices) {
        List<java.util.concurrent.CompletableFuture<Void>> all = new ArrayList<>();
        for (int nice : nices) all.add(startInBackground(nice));
        return java.util.concurrent.CompletableFuture.allOf(all.toArray(java.util.concurrent.CompletableFuture[]::new));
    }

    /**
     * The nice values of a worker's processing threads, for {@link #prestart}: {@code shared} threads
     * at {@code sharedNice} (or at the worker's own nice value, if that is higher, or 0 = unchanged),
     * then {@code reserved} threads at the worker's own.
     */
    public List<Integer> threadNices(int shared, int sharedNice, int reserved) {
        List<Integer> nices = new ArrayList<>();
        for (int i = 0; i < shared; i++) nices.add(sharedNice > 0 ? Math.max(starterNice, sharedNice) : starterNice);
        for (int i = 0; i < reserved; i++) nices.add(starterNice);
        return nices;
    }

    private java.util.concurrent.CompletableFuture<Void> startInBackground(int nice) {
        synchronized (this) {
            if (closed) return java.util.concurrent.CompletableFuture.completedFuture(null);
            starting.merge(nice, 1, Integer::sum);
        }
        try {
            return java.util.concurrent.CompletableFuture.runAsync(() -> {
                Processor p = null;
                try {
                    p = launch(nice);
                } catch (RuntimeException e) {
                    if (!closed) log.warn("processor (nice {}) not started in the background: {}", nice, e.getMessage());
                } finally {
                    synchronized (this) {
                        starting.merge(nice, -1, Integer::sum);
                        if (p != null) {
                            if (closed) forgetLocked(p);
                            else idle.computeIfAbsent(nice, k -> new ArrayDeque<>()).addLast(p);
                        }
                        notifyAll();
                    }
                }
            }, starters);
        } catch (java.util.concurrent.RejectedExecutionException e) { // closed meanwhile
            synchronized (this) {
                starting.merge(nice, -1, Integer::sum);
                notifyAll();
            }
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
    }

    /** A processor that exits while idle (killed from outside, the kernel's OOM killer) is dropped and replaced now, not when a job finds it dead. */
    private synchronized void diedIdle(Processor p) {
        if (closed) return;
        Deque<Processor> q = idle.get(p.nice());
        if (q != null && q.remove(p)) {
            log.warn("processor (pid {}) exited while idle; starting another", p.pid());
            forgetLocked(p);
        }
    }

    /** The processors' own directory (their working directory); deleted by {@link #close}. */
    Path dir() {
        return dir;
    }

    /** After a processor was dropped: starts its replacement in the background, unless the slots are all taken. */
    private void replenish(int nice) {
        boolean start;
        synchronized (this) {
            start = !closed && all.size() + starting.values().stream().mapToInt(Integer::intValue).sum() < slots;
        }
        if (start) startInBackground(nice);
    }

    private static RetryLater stopping() {
        return new RetryLater(RetryLater.Kind.CAPACITY, "interrupted", "the worker is stopping", 0, null);
    }

    /** Starts a processor now and waits for its hello (on the calling thread). */
    private Processor launch(int nice) {
        int number = started.incrementAndGet();
        long t0 = NANOS.getAsLong();
        ClassData.Use cds = classData.use();
        Processor p;
        try {
            p = Processor.start(number, launcher, Math.max(0, nice - starterNice), cds.flags(), timers, handoverFile(number));
        } catch (RuntimeException e) {
            cds.abandon();
            throw e;
        }
        long limit = launcher.limitAddressSpace(p.pid());
        synchronized (this) {
            if (closed) {
                p.kill();
                cds.abandon();
                throw stopping();
            }
            all.add(p);
            if (cds.dumps()) classData.dumper(p);
        }
        p.onExit(() -> diedIdle(p));
        log.info("processor {} started (pid {}, nice {}, {}{}, {} ms): {}", number, p.pid(), nice, launcher.sandboxed() ? "sandboxed" : "unsandboxed",
                limit > 0 ? ", address space ≤ " + (limit >> 20) + " MiB" : "", (NANOS.getAsLong() - t0) / 1_000_000, p.hello().path("codecs").asText());
        return p;
    }

    private void giveBack(Processor p) {
        synchronized (this) {
            if (closed || !p.alive()) {
                forgetLocked(p);
                return;
            }
            if (idle.values().stream().mapToInt(Deque::size).sum() < slots) {
                idle.computeIfAbsent(p.nice(), k -> new ArrayDeque<>()).addFirst(p);
                return;
            }
            all.remove(p);
        }
        p.stop(Duration.ofSeconds(2)); // more than the slots: one left over from a replaced thread
    }

    private void forget(Processor p) {
        synchronized (this) {
            all.remove(p);
        }
        p.kill();
        replenish(p.nice());
    }

    /** Drops a processor (killed) and, unless closed, starts its replacement in the background. */
    private void forgetLocked(Processor p) {
        all.remove(p);
        p.kill();
        if (!closed && all.size() + starting.values().stream().mapToInt(Integer::intValue).sum() < slots) {
            // Not under this lock: the start takes the lock when it ends.
            int nice = p.nice();
            timers.execute(() -> replenish(nice));
        }
    }

    /** Processors alive now (idle and busy). */
    public synchronized int processors() {
        return (int) all.stream().filter(Processor::alive).count();
    }

    /** Pids of the processors alive now. */
    public synchronized List<Long> pids() {
        return all.stream().filter(Processor::alive).map(Processor::pid).toList();
    }

    /** Stops every processor: idle ones exit on their own (the class-data archive is written then), busy ones are killed. */
    @Override
    public void close() {
        List<Processor> stopping;
        synchronized (this) {
            closed = true;
            stopping = new ArrayList<>(all);
            all.clear();
            idle.clear();
            notifyAll();
        }
        starters.shutdown(); // a start still under way kills its processor when it ends (launch sees closed)
        for (Processor p : stopping) p.stop(classData.isDumper(p) ? Duration.ofSeconds(10) : Duration.ofMillis(500));
        classData.finish();
        timers.shutdownNow();
        starters.shutdownNow();
        deleteTree(dir);
        if (handover != null) deleteTree(handover);
    }

    /**
     * Where the originals are handed over (docs/processors.md, "Per-job overhead"): a directory of this
     * worker's own (mode 700) on {@link #SHM}, a tmpfs, holding one file per processor, bound read-only
     * into that processor's sandbox alone. Null where there is no writable /dev/shm: originals then go
     * through the processors' stdin, as they always can (a failed write falls back to it too).
     */
    static Path handoverDir() {
        Path shm = Path.of(SHM);
        if (!Files.isDirectory(shm) || !Files.isWritable(shm)) return null;
        try {
            sweep(shm, com.fairpix.core.time.SystemTime.clock());
            return Files.createTempDirectory(shm, DIR_PREFIX + ProcessHandle.current().pid() + "-");
        } catch (IOException | RuntimeException e) {
            log.info("processors get their originals through their stdin: no directory on {} ({})", SHM, e.toString());
            return null;
        }
    }

    /** A new, empty hand-over file for processor {@code number}; null when there is none. */
    private Path handoverFile(int number) {
        if (handover == null) return null;
        Path f = handover.resolve(number + ".original");
        try {
            Files.deleteIfExists(f);
            return Files.createFile(f);
        } catch (IOException e) {
            log.warn("processor {} gets its originals through its stdin: {}", number, e.toString());
            return null;
        }
    }

    /** The tmpfs the originals are handed over on. */
    static final String SHM = "/dev/shm";

    /** The processors' directories' prefix in java.io.tmpdir; then the worker's pid, a dash and a random part. */
    static final String DIR_PREFIX = "fairpix-processors-p";

    /**
     * Deletes the processors' directories that workers left in {@code tmp} (killed, or a JVM that
     * exited without closing its worker): those whose worker pid no longer runs, and those of the
     * older naming (no pid: {@code fairpix-processors-<random>}) not modified for an hour.
     *
     * @return how many were deleted
     */
    static int sweep(Path tmp, java.time.Clock clock) {
        int n = 0;
        try (var entries = Files.newDirectoryStream(tmp, "fairpix-processors-*")) {
            for (Path d : entries) {
                String name = d.getFileName().toString();
                boolean stale;
                if (name.startsWith(DIR_PREFIX)) {
                    String rest = name.substring(DIR_PREFIX.length());
                    int dash = rest.indexOf('-');
                    long pid;
                    try {
                        pid = Long.parseLong(dash < 0 ? rest : rest.substring(0, dash));
                    } catch (NumberFormatException e) {
                        continue;
                    }
                    stale = pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true);
                } else {
                    stale = name.substring("fairpix-processors-".length()).chars().allMatch(Character::isDigit)
                            && clock.millis() - Files.getLastModifiedTime(d).toMillis() > 3_600_000;
                }
                if (stale && Files.isDirectory(d, java.nio.file.LinkOption.NOFOLLOW_LINKS) && deleteTree(d)) n++;
            }
        } catch (IOException | RuntimeException e) {
            log.debug("processors' directories in {} not swept: {}", tmp, e.toString());
        }
        if (n > 0) log.info("deleted {} processors' directories left in {} by workers that are gone", n, tmp);
        return n;
    }

    /** Deletes a directory and what it holds (links are deleted, not followed); false when something is left. */
    static boolean deleteTree(Path dir) {
        try (var walk = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) walk.sorted(java.util.Comparator.reverseOrder())::iterator) Files.deleteIfExists(f);
            return true;
        } catch (IOException | java.io.UncheckedIOException e) {
            log.debug("processors' directory {} left: {}", dir, e.toString());
            return false;
        }
    }
}
