package com.fairpix.worker.run;

import com.fairpix.core.os.CpuPriority;
import com.fairpix.core.job.JobMessage;
import com.fairpix.worker.consume.Delivery;
import com.fairpix.worker.consume.JobConsumer;
import com.fairpix.worker.schedule.JobScheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's processing threads: each takes the next job from the {@link JobScheduler} for its
 * kind of slot, runs it, and reports how it ended to the poll loop through a {@link JobConsumer.Feedback}. They
 * never touch the Kafka consumer (not thread-safe). A job that throws, even an {@code Error} (an
 * out-of-memory in one job), is handed back for redelivery and the thread goes on.
 */
public final class ProcessingThreads implements JobConsumer.Processing {
    private static final Logger log = LoggerFactory.getLogger(ProcessingThreads.class);
    private static final java.lang.management.ThreadMXBean THREAD_CPU = java.lang.management.ManagementFactory.getThreadMXBean();

    /**
     * Runs one attempt of a job ({@link JobRunner#run(JobMessage, int, Instant, boolean)}); {@code slot}
     * is the kind of slot it runs on: a job on a reserved slot writes its own results (see there).
     */
    @FunctionalInterface
    public interface Runner {
        JobRunner.Outcome run(JobMessage message, int attempt, Instant enqueuedAt, JobScheduler.Slot slot) throws InterruptedException;
    }

    /** Hears about every finished attempt (metrics, fairness accounting, capacity). Called on processing threads. */
    public interface Listener {
        /**
         * @param estimatedCost the job's estimated cost, cost units
         * @param seconds       wall seconds it held its processing thread
         */
        void finished(String tenant, double estimatedCost, double seconds);
    }

    private final JobScheduler<Delivery> scheduler;
    private final Runner runner;
    private final Predicate<String> held;
    private final JobConsumer.Feedback sink;
    private final Listener listener;
    private final BooleanSupplier dependencyDown;
    private final int sharedThreads;
    private final int reservedThreads;
    private final int sharedNice;
    private final LongSupplier nanos;
    private final CostModel costs = new CostModel();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger finishing = new AtomicInteger();
    private final List<Thread> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean stopping;
    /** Past this a job is abandoned (see {@link #abandonStuck}); null: never. */
    private volatile Duration abandonAfter;
    private volatile java.util.function.BiConsumer<JobMessage, Duration> abandon = (m, d) -> {};
    private final java.util.Map<Thread, Running> runningJobs = new java.util.concurrent.ConcurrentHashMap<>();
    /** Threads replaced while stuck in a job: they end when (if ever) that job returns. */
    private final java.util.Set<Thread> retired = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final AtomicInteger abandoned = new AtomicInteger();

    /** A job on a thread, for the watchdog. */
    private record Running(JobScheduler.Item<Delivery> item, JobScheduler.Slot slot, long startedNanos,
                           java.util.concurrent.atomic.AtomicBoolean settled) {}

    /**
     * @param held            true for a tenant whose jobs must not run now (suspended)
     * @param dependencyDown  true while a dependency's breaker is open: take no job
     * @param sharedThreads   threads for the scheduler's shared slots
     * @param reservedThreads threads for its reserved slots (normal CPU priority)
     * @param sharedNice      nice value (0..19) of the shared threads; 0 leaves it
     * @param nanos           monotonic clock, nanoseconds: jobs' run times (the watchdog's limit, the service
     *                        each tenant got) and {@link #stop}'s deadline
     */
    public ProcessingThreads(JobScheduler<Delivery> scheduler, Runner runner, Predicate<String> held, JobConsumer.Feedback sink,
                             Listener listener, BooleanSupplier dependencyDown,
                             int sharedThreads, int reservedThreads, int sharedNice, LongSupplier nanos) {
        if (sharedNice < 0 || sharedNice > 19) throw new IllegalArgumentException("sharedNice must be 0..19, got " + sharedNice);
        this.scheduler = scheduler;
        this.runner = runner;
        this.held = held;
        this.sink = sink;
        this.listener = listener;
        this.dependencyDown = dependencyDown;
        this.sharedThreads = sharedThreads;
        this.reservedThreads = reservedThreads;
        this.sharedNice = sharedNice;
        this.nanos = nanos;
    }

    /**
     * The kill-and-fail path for a step that cannot be stopped (a native OpenCV call): a job still
     * running {@code after} its start is abandoned: {@code abandon} fails it (its record FAILED, one
     * dead-letter record), its slot and offset are freed, and a new thread takes the stuck one's place.
     * The stuck thread's CPU is not given back until the call returns (Java cannot stop a thread in
     * native code); its late result is dropped, since the record is terminal.
     */
    public ProcessingThreads abandonAfter(Duration after, java.util.function.BiConsumer<JobMessage, Duration> abandon) {
        this.abandonAfter = after;
        this.abandon = abandon;
        return this;
    }

    @Override
    public void start() {
        for (int i = 0; i < sharedThreads; i++) startThread(JobScheduler.Slot.SHARED, "fairpix-shared-" + i);
        for (int i = 0; i < reservedThreads; i++) startThread(JobScheduler.Slot.RESERVED, "fairpix-reserved-" + i);
        if (abandonAfter != null) {
            Thread.ofPlatform().daemon().name("fairpix-watchdog").start(() -> {
                long period = Math.max(10, Math.min(1_000, abandonAfter.toMillis() / 4));
                while (!stopping) {
                    try {
                        Thread.sleep(period);
                    } catch (InterruptedException e) {
                        return;
                    }
                    abandonStuck(nanos.getAsLong());
                }
            });
        }
    }

    private void startThread(JobScheduler.Slot slot, String name) {
        // Listed before it starts: a job it takes at once must find it among the live threads.
        Thread thread = Thread.ofPlatform().name(name).unstarted(() -> {
            if (slot == JobScheduler.Slot.SHARED) {
                try {
                    if (sharedNice > 0) CpuPriority.lowerCurrentThread(sharedNice);
                } catch (Throwable e) { // a missing native part must not cost the worker its thread
                    log.warn("processing thread keeps normal CPU priority: {}", e.toString());
                }
            }
            loop(slot);
        });
        threads.add(thread);
        thread.start();
    }

    /** Abandons every job running longer than {@link #abandonAfter} at {@code nowNanos}; see there. */
    void abandonStuck(long nowNanos) {
        Duration limit = abandonAfter;
        if (limit == null) return;
        for (var e : runningJobs.entrySet()) {
            Running r = e.getValue();
            Duration ran = Duration.ofNanos(nowNanos - r.startedNanos());
            if (ran.compareTo(limit) <= 0 || !r.settled().compareAndSet(false, true)) continue;
            Delivery d = r.item().payload();
            log.error("job {} of {} has run {} s in one step, past {} s: abandoning it and replacing its thread {}",
                    d.message().jobId(), d.message().tenant(), ran.toSeconds(), limit.toSeconds(), e.getKey().getName());
            try {
                abandon.accept(d.message(), ran);
            } catch (RuntimeException failed) {
                log.warn("job {} could not be marked FAILED ({}); it will be redelivered", d.message().jobId(), failed.toString());
            }
            running.decrementAndGet();
            scheduler.finished(r.item(), 0);
            sink.completed(d, true);
            abandoned.incrementAndGet();
            retired.add(e.getKey());
            runningJobs.remove(e.getKey());
            // When (if ever) its call returns, the interrupt keeps the stuck thread from writing results for a FAILED job.
            e.getKey().interrupt();
            if (!stopping) startThread(r.slot(), e.getKey().getName() + "-replaced");
        }
    }

    /** Jobs abandoned so far (metrics). */
    public int abandoned() {
        return abandoned.get();
    }

    /** Jobs running now. */
    public int running() {
        return running.get();
    }

    /** Jobs running now on shared threads (the reserved ones left out). */
    public int runningShared() {
        int n = 0;
        for (Running r : runningJobs.values()) if (r.slot() == JobScheduler.Slot.SHARED) n++;
        return n;
    }

    /** Threads alive and not replaced (all of them until {@link #stop}). */
    public int alive() {
        return (int) threads.stream().filter(t -> t.isAlive() && !retired.contains(t)).count();
    }

    /** True while every shared and reserved thread is alive and not replaced: the worker's readiness. */
    @Override
    public boolean allAlive() {
        return alive() == sharedThreads + reservedThreads;
    }

    /**
     * Takes no new job; waits until {@code until} (on the nanosecond clock) for running ones and for the
     * writes of those already processed, then interrupts.
     */
    @Override
    public void stop(long until) {
        stopping = true;
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, (until - nanos.getAsLong()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Thread t : threads) t.interrupt();
        synchronized (finishing) {
            while (finishing.get() > 0 && until - nanos.getAsLong() > 0) {
                try {
                    finishing.wait(Math.max(1, (until - nanos.getAsLong()) / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void loop(JobScheduler.Slot slot) {
        while (!stopping && !retired.contains(Thread.currentThread())) {
            JobScheduler.Item<Delivery> item;
            try {
                if (dependencyDown.getAsBoolean()) {
                    Thread.sleep(200);
                    continue;
                }
                item = scheduler.take(200, TimeUnit.MILLISECONDS, slot);
            } catch (InterruptedException e) {
                return;
            }
            if (item == null) continue;
            if (!runOne(item, slot)) return;
        }
    }

    /** {@link #runOne(JobScheduler.Item, JobScheduler.Slot)} on a shared slot. */
    boolean runOne(JobScheduler.Item<Delivery> item) {
        return runOne(item, JobScheduler.Slot.SHARED);
    }

    /** One job, start to report; false when the thread was interrupted or replaced and must end. */
    boolean runOne(JobScheduler.Item<Delivery> item, JobScheduler.Slot slot) {
        Delivery d = item.payload();
        sink.taken(d);
        if (stopping) {
            // Shutting down: hand the job back (uncommitted) instead of starting it.
            scheduler.finished(item, 0);
            return true;
        }
        if (held.test(d.message().tenant()) && sink.park(d)) {
            scheduler.finished(item, 0);
            sink.completed(d, true);
            return true;
        }
        running.incrementAndGet();
        long started = nanos.getAsLong();
        long cpuStarted = cpuNanos();
        Running mine = new Running(item, slot, started, new java.util.concurrent.atomic.AtomicBoolean());
        runningJobs.put(Thread.currentThread(), mine);
        JobRunner.Outcome outcome = new JobRunner.Outcome.Redeliver();
        boolean interrupted = false;
        boolean reported = false;
        try {
            outcome = runner.run(d.message(), d.attempt(), d.enqueuedAt(), slot);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            interrupted = true;
        } catch (RuntimeException | Error e) {
            // The thread survives an Error too (an OOM in one job): the job is redelivered, and its
            // attempts are counted by the runner.
            log.error("job {} crashed the runner; it will be redelivered", d.message().jobId(), e);
        } finally {
            runningJobs.remove(Thread.currentThread(), mine);
            // Whoever settles the job first, this thread or the watchdog, reports it; the other drops it.
            if (mine.settled().compareAndSet(false, true)) {
                reported = true;
                report(item, outcome, started, cpuStarted);
            }
        }
        if (!reported) {
            log.warn("abandoned job {} returned after {} s; its outcome is dropped", d.message().jobId(), (nanos.getAsLong() - started) / 1_000_000_000L);
            return false;
        }
        return !interrupted;
    }

    private void report(JobScheduler.Item<Delivery> item, JobRunner.Outcome outcome, long started, long cpuStarted) {
        Delivery d = item.payload();
        running.decrementAndGet();
        double seconds = (nanos.getAsLong() - started) / 1e9;
        // Only a job that ran says what its cost was; a skipped one (cancelled, already done) took no work.
        // Its cost is the thread's CPU time (OpenCV runs on this thread): wall time would charge a job for
        // sharing the cores, as one on the reserved thread always does, and for waiting on memory or I/O.
        boolean ran = outcome instanceof JobRunner.Outcome.Finished f && f.processed();
        long cpu = cpuNanos();
        double measured = cpu >= 0 && cpuStarted >= 0 ? (cpu - cpuStarted) / 1e9 : seconds;
        if (outcome instanceof JobRunner.Outcome.Finishing f) {
            // The image work is done: the thread and its slot are free; the job still counts against
            // its tenant's running cap, and its offset waits, until its writes end. Its cost is this
            // thread's CPU, as for any job that ran.
            scheduler.releaseSlot(item);
            double correction = costs.correction(item.cost(), measured);
            finishing.incrementAndGet();
            f.outcome().whenComplete((o, e) -> {
                JobRunner.Outcome end = o == null ? new JobRunner.Outcome.Redeliver() : o;
                // Charged only when the job is done, as a job run on its thread: writes that failed
                // (an outage) are retried and charged then.
                boolean done = end instanceof JobRunner.Outcome.Finished fin && fin.processed();
                try {
                    scheduler.finished(item, done ? correction : 0);
                    if (done) listener.finished(item.tenant(), item.cost(), seconds);
                } catch (RuntimeException failed) {
                    log.error("job {}: accounting its finish failed", d.message().jobId(), failed);
                }
                try {
                    settle(item, end);
                } catch (RuntimeException failed) { // e.g. the retry executor refusing while stopping: read again
                    log.warn("job {}: its outcome could not be reported ({}); it will be redelivered", d.message().jobId(), failed.toString());
                    sink.completed(d, false);
                } finally {
                    if (finishing.decrementAndGet() == 0) {
                        synchronized (finishing) {
                            finishing.notifyAll();
                        }
                    }
                }
            });
            return;
        }
        scheduler.finished(item, ran ? costs.correction(item.cost(), measured) : 0);
        if (ran) listener.finished(item.tenant(), item.cost(), seconds);
        settle(item, outcome);
    }

    /** Tells the poll loop how the job ended: commit, read again, or retry later. */
    private void settle(JobScheduler.Item<Delivery> item, JobRunner.Outcome outcome) {
        Delivery d = item.payload();
        switch (outcome) {
            case JobRunner.Outcome.Finished f -> sink.completed(d, true);
            case JobRunner.Outcome.Redeliver r -> sink.completed(d, false);
            case JobRunner.Outcome.RetryAfter r -> sink.retryLater(item, r.delay(), r.countsAsAttempt());
            // A dependency is out: the job stays with this worker (its offset uncommitted) and comes back
            // after the back-off, its attempts untouched.
            case JobRunner.Outcome.Parked p -> sink.retryLater(item, p.delay(), false);
            case JobRunner.Outcome.Finishing f -> throw new IllegalStateException("a finished job's outcome is never Finishing");
        }
    }

    /** Jobs whose images are made and whose writes are still running. */
    public int finishing() {
        return finishing.get();
    }

    /** This thread's CPU time, ns; -1 where the JVM cannot tell (then wall time is used). */
    private static long cpuNanos() {
        return THREAD_CPU.isCurrentThreadCpuTimeSupported() ? THREAD_CPU.getCurrentThreadCpuTime() : -1;
    }
}
