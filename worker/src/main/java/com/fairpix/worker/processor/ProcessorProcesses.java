package com.fairpix.worker.processor;

import com.fairpix.core.error.Permanent;
import com.fairpix.core.error.RetryLater;
import com.fairpix.core.job.JobSpec;
import com.fairpix.worker.consume.CpuPriority;
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
 * child JVMs started from the worker's own class path, one job at a time each, started when a
 * processing thread first needs one and kept for the next job. A processor runs at the nice value of
 * the thread that uses it (shared threads' jobs in the background, reserved threads' at normal
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
    /** For the start time a log line reports. */
    private static final java.util.function.LongSupplier NANOS = com.fairpix.core.time.SystemTime.nanos();

    private final ProcessorLauncher launcher;
    private final int slots;
    private final Duration deadline;
    private final Path dir;
    private final ClassData classData;
    private final Map<Integer, Deque<Processor>> idle = new HashMap<>();
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
    private ProcessorProcesses(ProcessorLauncher launcher, int slots, Duration jobTimeout, Path dir, ClassData classData) {
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
            Path dir = Files.createTempDirectory("fairpix-processors-");
            Path lib = com.fairpix.worker.process.OpenCv.extractLibrary();
            ClassData classData = new ClassData(Path.of(System.getProperty("java.io.tmpdir"), "fairpix-processor-cds"), com.fairpix.core.time.SystemTime.clock());
            boolean hooks = Boolean.getBoolean(ProcessorMain.HOOKS_PROPERTY) || "true".equals(System.getenv("FAIRPIX_TEST_PROCESSOR_HOOKS"));
            ProcessorLauncher launcher = new ProcessorLauncher(new ProcessorLauncher.Settings(maxPixels, jobTimeout.toMillis(), nativeMemoryBytes,
                    Math.max(64, memoryMb / 2), memoryMb, sandbox, hooks, true), dir, lib == null ? null : lib.getParent(), classData.dir());
            if (sandbox) ProcessorLauncher.sandboxWorks(); // says once, at start, whether they are sandboxed
            return new ProcessorProcesses(launcher, slots, jobTimeout, dir, classData);
        } catch (IOException e) {
            throw new IllegalStateException("cannot make the processors' directory: " + e, e);
        }
    }

    @Override
    public Processed process(String jobId, byte[] source, JobSpec spec, Assets assets) throws InterruptedException {
        // Read by the worker: a processor has no access to storage.
        Map<String, byte[]> read = new LinkedHashMap<>();
        for (String key : spec.watermarkKeys()) read.put(key, assets.read(key));
        Integer current = CpuPriority.currentThreadNice();
        int nice = current == null ? 0 : Math.max(0, current);
        while (true) {
            if (closed) throw new RetryLater(RetryLater.Kind.CAPACITY, "interrupted", "the worker is stopping", 0, null);
            if (Thread.currentThread().isInterrupted()) throw new InterruptedException("job " + jobId + " interrupted");
            Processor p = take(nice);
            try {
                Processed done = p.run(jobId, source, spec, read, deadline, timers);
                giveBack(p);
                return done;
            } catch (Processor.Died d) {
                forget(p);
                if (closed) throw new RetryLater(RetryLater.Kind.CAPACITY, "interrupted", "the worker is stopping", 0, null);
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

    private Processor take(int nice) {
        synchronized (this) {
            Deque<Processor> q = idle.get(nice);
            while (q != null && !q.isEmpty()) {
                Processor p = q.pollFirst();
                if (p.alive()) return p;
                all.remove(p);
            }
        }
        int number = started.incrementAndGet();
        long t0 = NANOS.getAsLong();
        ClassData.Use cds = classData.use();
        Processor p;
        try {
            p = Processor.start(number, launcher, Math.max(0, nice - starterNice), cds.flags(), timers);
        } catch (RuntimeException e) {
            cds.abandon();
            throw e;
        }
        long limit = launcher.limitAddressSpace(p.pid());
        synchronized (this) {
            all.add(p);
            if (cds.dumps()) classData.dumper(p);
        }
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

    private synchronized void forget(Processor p) {
        forgetLocked(p);
    }

    private void forgetLocked(Processor p) {
        all.remove(p);
        p.kill();
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
        }
        for (Processor p : stopping) p.stop(classData.isDumper(p) ? Duration.ofSeconds(10) : Duration.ofMillis(500));
        classData.finish();
        timers.shutdownNow();
        try (var files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) Files.deleteIfExists(f);
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            log.debug("processors' directory {} left: {}", dir, e.toString());
        }
    }
}
