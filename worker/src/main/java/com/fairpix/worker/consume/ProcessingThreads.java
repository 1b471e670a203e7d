package com.fairpix.worker.consume;

import com.fairpix.core.job.JobMessage;
import com.fairpix.worker.JobRunner;
import com.fairpix.worker.schedule.JobScheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's processing threads: each takes the next job from the {@link JobScheduler} for its
 * kind of slot, runs it, and reports how it ended to the poll loop through a {@link Sink}. They
 * never touch the Kafka consumer (not thread-safe). A job that throws, even an {@code Error} (an
 * out-of-memory in one job), is handed back for redelivery and the thread goes on.
 */
public final class ProcessingThreads {
    private static final Logger log = LoggerFactory.getLogger(ProcessingThreads.class);
    private static final java.lang.management.ThreadMXBean THREAD_CPU = java.lang.management.ManagementFactory.getThreadMXBean();

    /** Runs one attempt of a job ({@link JobRunner#run}). */
    @FunctionalInterface
    public interface Runner {
        JobRunner.Outcome run(JobMessage message, int attempt, Instant enqueuedAt) throws InterruptedException;
    }

    /** What the threads tell the poll loop. Called on processing threads: implementations are thread-safe. */
    public interface Sink {
        /** The job left the buffer (its room in the read-ahead is free). */
        void taken(JobConsumer.Delivery d);

        /** Parks a held (suspended) tenant's job; false when it could not be parked and must run. */
        boolean park(JobConsumer.Delivery d);

        /** The job is finished ({@code commit}) or must be read again from its offset. */
        void completed(JobConsumer.Delivery d, boolean commit);

        /** The job failed transiently: try again after {@code delay}. */
        void retryLater(JobScheduler.Item<JobConsumer.Delivery> item, Duration delay, boolean countsAsAttempt);
    }

    private final JobScheduler<JobConsumer.Delivery> scheduler;
    private final Runner runner;
    private final Predicate<String> held;
    private final Sink sink;
    private final JobConsumer.Listener listener;
    private final BooleanSupplier dependencyDown;
    private final int sharedThreads;
    private final int reservedThreads;
    private final int sharedNice;
    private final CostModel costs = new CostModel();
    private final AtomicInteger running = new AtomicInteger();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopping;

    /**
     * @param held            true for a tenant whose jobs must not run now (suspended)
     * @param dependencyDown  true while a dependency's breaker is open: take no job
     * @param sharedThreads   threads for the scheduler's shared slots
     * @param reservedThreads threads for its reserved slots (normal CPU priority)
     * @param sharedNice      nice value (0..19) of the shared threads; 0 leaves it
     */
    public ProcessingThreads(JobScheduler<JobConsumer.Delivery> scheduler, Runner runner, Predicate<String> held, Sink sink,
                             JobConsumer.Listener listener, BooleanSupplier dependencyDown,
                             int sharedThreads, int reservedThreads, int sharedNice) {
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
    }

    public void start() {
        for (int i = 0; i < sharedThreads; i++) {
            threads.add(Thread.ofPlatform().name("fairpix-shared-" + i).start(() -> {
                try {
                    if (sharedNice > 0) CpuPriority.lowerCurrentThread(sharedNice);
                } catch (Throwable e) { // a missing native part must not cost the worker its thread
                    log.warn("processing thread keeps normal CPU priority: {}", e.toString());
                }
                loop(JobScheduler.Slot.SHARED);
            }));
        }
        for (int i = 0; i < reservedThreads; i++) {
            threads.add(Thread.ofPlatform().name("fairpix-reserved-" + i).start(() -> loop(JobScheduler.Slot.RESERVED)));
        }
    }

    /** Jobs running now. */
    public int running() {
        return running.get();
    }

    /** Threads still alive (all of them until {@link #stop}). */
    public int alive() {
        return (int) threads.stream().filter(Thread::isAlive).count();
    }

    /** Takes no new job; waits until {@code until} (System.nanoTime) for running ones, then interrupts. */
    public void stop(long until) {
        stopping = true;
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, (until - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Thread t : threads) t.interrupt();
    }

    private void loop(JobScheduler.Slot slot) {
        while (!stopping) {
            JobScheduler.Item<JobConsumer.Delivery> item;
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
            if (!runOne(item)) return;
        }
    }

    /** One job, start to report; false when the thread was interrupted and must end. */
    boolean runOne(JobScheduler.Item<JobConsumer.Delivery> item) {
        JobConsumer.Delivery d = item.payload();
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
        long started = System.nanoTime();
        long cpuStarted = cpuNanos();
        JobRunner.Outcome outcome = new JobRunner.Outcome.Redeliver();
        boolean interrupted = false;
        try {
            outcome = runner.run(d.message(), d.attempt(), d.enqueuedAt());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            interrupted = true;
        } catch (RuntimeException | Error e) {
            // The thread survives an Error too (an OOM in one job): the job is redelivered, and its
            // attempts are counted by the runner.
            log.error("job {} crashed the runner; it will be redelivered", d.message().jobId(), e);
        } finally {
            running.decrementAndGet();
            double seconds = (System.nanoTime() - started) / 1e9;
            // Only a job that ran says what its cost was; a skipped one (cancelled, already done) took no work.
            // Its cost is the thread's CPU time (OpenCV runs on this thread): wall time would charge a job for
            // sharing the cores, as one on the reserved thread always does, and for waiting on memory or I/O.
            boolean ran = outcome instanceof JobRunner.Outcome.Finished f && f.processed();
            long cpu = cpuNanos();
            double measured = cpu >= 0 && cpuStarted >= 0 ? (cpu - cpuStarted) / 1e9 : seconds;
            scheduler.finished(item, ran ? costs.correction(item.cost(), measured) : 0);
            if (ran) listener.finished(item.tenant(), item.cost(), seconds);
            switch (outcome) {
                case JobRunner.Outcome.Finished f -> sink.completed(d, true);
                case JobRunner.Outcome.Redeliver r -> sink.completed(d, false);
                case JobRunner.Outcome.RetryAfter r -> sink.retryLater(item, r.delay(), r.countsAsAttempt());
            }
        }
        return !interrupted;
    }

    /** This thread's CPU time, ns; -1 where the JVM cannot tell (then wall time is used). */
    private static long cpuNanos() {
        return THREAD_CPU.isCurrentThreadCpuTimeSupported() ? THREAD_CPU.getCurrentThreadCpuTime() : -1;
    }
}
