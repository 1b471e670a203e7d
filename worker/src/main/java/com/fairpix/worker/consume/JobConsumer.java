package com.fairpix.worker.consume;

import com.fairpix.worker.notify.EventPublisher;
import com.fairpix.worker.schedule.JobScheduler;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The worker's consumption: its parts wired together, their threads started and stopped. One
 * thread ({@link PollLoop}) owns the consumer and only polls, buffers and commits: jobs go into the
 * {@link JobScheduler} and run on separate processing threads ({@link Processing}), so a long job
 * never stalls polling (nor expels the worker from its group). Offsets are committed per partition
 * only up to the first unfinished job ({@link Commits}), so a crash loses nothing: unfinished jobs
 * are redelivered, and the runner skips the ones already done. A rebalance hands partitions over
 * ({@link Handover}); buffered jobs of tenants suspended since are parked ({@link HeldSweep}).
 *
 * <p>What it holds is bounded by {@link ReadAhead}: by default per tenant and in all, reading past
 * a tenant whose share of the buffer is full and fetching its records again on a thread of its own
 * ({@link CatchUpLoop}) once it has room, so no tenant's backlog stalls a partition for the other
 * tenants on it (docs/isolation.md). A transient failure is retried after a backoff from a timer, so
 * the processing thread goes on with other tenants' work meanwhile.
 */
public final class JobConsumer implements AutoCloseable {
    /** How long past a stop's deadline the poll thread may take to commit and close before it is woken up, ms. */
    private static final long STOP_GRACE_MILLIS = 5_000;

    /** What the processing threads report back. Called on processing threads: thread-safe. */
    public interface Feedback {
        /** The job left the buffer (its room in the read-ahead is free). */
        void taken(Delivery d);

        /** Parks a held (suspended) tenant's job; false when it could not be parked and must run. */
        boolean park(Delivery d);

        /** The job is finished ({@code commit}) or must be read again from its offset. */
        void completed(Delivery d, boolean commit);

        /** The job failed transiently: try again after {@code delay}, an attempt more if {@code countsAsAttempt}. */
        void retryLater(JobScheduler.Item<Delivery> item, Duration delay, boolean countsAsAttempt);
    }

    /** The threads that run what this consumer buffers, as it starts, watches and stops them. */
    public interface Processing {
        /** Starts the threads; called from {@link JobConsumer#start}, whose thread's CPU priority they inherit. */
        void start();

        /** Takes no new job; lets running ones finish until {@code untilNanos} (on the nanosecond clock), then interrupts. */
        void stop(long untilNanos);

        /** True while every thread is alive and not replaced (readiness). */
        boolean allAlive();
    }

    private final JobScheduler<Delivery> scheduler;
    private final ReadAhead readAhead;
    private final LongSupplier nanos;
    private final Ownership ownership = new Ownership();
    private final Intake intake;
    private final Completions completions;
    private final CatchUpLoop catchUps;
    private final PollLoop pollLoop;
    private final Feedback feedback = new ToPollLoop();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final ScheduledThreadPoolExecutor retries = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform().daemon().name("fairpix-retry").unstarted(r));
    private volatile BooleanSupplier dependencyDown = () -> false;
    private volatile Processing processing;
    private Thread catchUpThread;
    private volatile boolean stopping;
    private volatile boolean closing;

    /**
     * @param consumer the group member on {@code topic}: this object uses and closes it (from its poll thread)
     * @param fetcher  fetches a held-back tenant's records again, over a consumer of its own (closed on stop)
     * @param config   its read-ahead bounds (the processing settings are {@link Processing}'s)
     * @param held     true for a tenant whose jobs must not run now (suspended)
     * @param parking  where such jobs are parked until the tenant is activated
     * @param clock    the wall clock: when partitions were revoked ({@link #lastRevoked})
     * @param nanos    monotonic clock, nanoseconds: commit and sweep intervals, stop deadlines, the
     *                 read-ahead's catch-up waits
     */
    public JobConsumer(Consumer<String, byte[]> consumer, CatchUp.Fetcher fetcher, String topic, ConsumeConfig config,
                       JobScheduler<Delivery> scheduler, EventPublisher events, Predicate<String> held, JobParking parking,
                       Clock clock, LongSupplier nanos) {
        this.scheduler = scheduler;
        this.nanos = nanos;
        this.readAhead = new ReadAhead(config.readAhead(), config.limits(), nanos);
        OffsetTracker offsets = new OffsetTracker();
        this.intake = new Intake(readAhead, offsets, scheduler, events, held, parking);
        this.completions = new Completions(consumer, scheduler, intake, offsets, readAhead);
        Commits commits = new Commits(consumer, offsets, readAhead, ownership, nanos);
        Handover handover = new Handover(ownership, scheduler, intake, completions, commits, offsets, readAhead, clock);
        this.catchUps = new CatchUpLoop(readAhead, new CatchUp(fetcher), ownership, intake, offsets);
        HeldSweep sweep = new HeldSweep(scheduler, held, intake, readAhead, offsets, nanos);
        this.pollLoop = new PollLoop(consumer, topic, handover, completions, sweep, commits, intake, catchUps, readAhead, offsets, ownership,
                this::paused);
    }

    /**
     * While {@code down} answers true (a dependency's circuit breaker is open), pause every
     * partition and fetch nothing again: offsets stay where they are and nothing is lost or failed.
     * (The processing threads take no job meanwhile: they are given the same signal.)
     */
    public JobConsumer dependencyDown(BooleanSupplier down) {
        this.dependencyDown = down;
        return this;
    }

    /** The threads that run the buffered jobs: given before {@link #start}, which starts them. */
    public JobConsumer processedBy(Processing processing) {
        this.processing = processing;
        return this;
    }

    /** Where the processing threads report how each job they took ended. */
    public Feedback feedback() {
        return feedback;
    }

    /** Starts the processing threads, the poll thread and the catch-up thread. */
    public void start() {
        // Threads inherit their creator's nice value: start the retry timer here, not lazily from a shared thread.
        retries.prestartAllCoreThreads();
        if (processing != null) processing.start();
        Thread.ofPlatform().name("fairpix-poll").start(() -> {
            try {
                pollLoop.run(() -> closing);
            } finally {
                stopped.countDown();
            }
        });
        catchUpThread = Thread.ofPlatform().name("fairpix-catch-up").start(() -> catchUps.run(() -> closing, this::paused));
    }

    /** Stopping, or a dependency down: no partition is read, nothing fetched again. */
    private boolean paused() {
        return stopping || dependencyDown.getAsBoolean();
    }

    /** True while the poll loop runs without errors and every processing thread is alive (readiness). */
    public boolean healthy() {
        Processing p = processing;
        return pollLoop.healthy() && !stopping && (p == null || p.allAlive());
    }

    /** Partitions this worker owns now. */
    public Set<TopicPartition> owned() {
        return Set.copyOf(ownership.owned());
    }

    /** When each partition was last taken from this worker (epoch ms); absent if never. */
    public Map<TopicPartition, Long> lastRevoked() {
        return ownership.lastRevoked();
    }

    /** Jobs buffered in the scheduler, waiting for a processing thread. */
    public int buffered() {
        return scheduler.size();
    }

    /** What this worker holds in memory, and whom it holds back. */
    public ReadAhead readAhead() {
        return readAhead;
    }

    /** Hears of every record read past (its tenant held back): metrics. Called on the poll thread. */
    public JobConsumer onReadPast(java.util.function.Consumer<String> listener) {
        intake.onReadPast(listener);
        return this;
    }

    /** The poll and commit loop, for a test to turn by hand instead of {@link #start}. */
    PollLoop pollLoop() {
        return pollLoop;
    }

    /** The catch-up, for a test to run its rounds by hand instead of {@link #start}. */
    CatchUpLoop catchUps() {
        return catchUps;
    }

    /** What the processing threads report, queued for the poll thread (which alone touches the consumer). */
    private final class ToPollLoop implements Feedback {
        @Override
        public void taken(Delivery d) {
            intake.unbuffered(d);
        }

        @Override
        public boolean park(Delivery d) {
            return intake.park(d);
        }

        @Override
        public void completed(Delivery d, boolean commit) {
            completions.add(d, commit);
        }

        @Override
        public void retryLater(JobScheduler.Item<Delivery> item, Duration delay, boolean countsAsAttempt) {
            Delivery d = item.payload();
            Delivery again = new Delivery(d.partition(), d.offset(), d.message(), d.attempt() + (countsAsAttempt ? 1 : 0), d.enqueuedAt(), d.bytes());
            retries.schedule(() -> {
                // A partition revoked meanwhile belongs to another worker now, which redelivers the job.
                if (!ownership.owns(d.partition()) || stopping) return;
                // A retry goes back in whatever the limits say: it was admitted once and must not be lost.
                readAhead.reserveAnyway(d.partition(), d.message().tenant(), d.bytes(), again.enqueuedAt().toEpochMilli());
                scheduler.add(new JobScheduler.Item<>(item.tenant(), item.cost(), again));
            }, delay.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Graceful stop: take no new job, let running jobs finish within {@code deadline}, commit what
     * is done, leave the group. Jobs not finished are redelivered to another worker.
     */
    public void stop(Duration deadline) {
        if (stopping) return;
        stopping = true;
        retries.shutdownNow();
        long until = nanos.getAsLong() + deadline.toNanos();
        Processing p = processing;
        if (p != null) p.stop(until);
        closing = true;
        if (catchUpThread != null) catchUpThread.interrupt();
        try {
            if (!stopped.await(Math.max(1, (until - nanos.getAsLong()) / 1_000_000) + STOP_GRACE_MILLIS, TimeUnit.MILLISECONDS)) {
                pollLoop.wakeup();
                stopped.await(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(30));
    }
}
