package com.fairpix.worker.run;

import com.fairpix.core.error.FairpixException;
import com.fairpix.core.error.Permanent;
import com.fairpix.core.job.JobEvent;
import com.fairpix.core.job.JobMessage;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.log.LogSafe;
import com.fairpix.core.metrics.MetricNames;
import com.fairpix.core.metrics.TenantTags;
import com.fairpix.core.usage.UsageLedger;
import com.fairpix.worker.notify.EventPublisher;
import com.fairpix.worker.process.ImagePipeline;
import com.fairpix.worker.process.ImageProcessor;
import com.fairpix.worker.store.ResultWriter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one job to a terminal state: RUNNING → decode/process → results in S3 → DONE (or FAILED),
 * then its event. Idempotent: a job already terminal is skipped, so a redelivered message does no
 * second work and emits no second completion.
 *
 * <p>Poison jobs are contained: each attempt is counted in the job's record (the RUNNING write)
 * before any processing, and a job whose record already holds {@code maxAttempts} attempts is
 * FAILED ({@code attempts-exhausted}) with one dead-letter record instead of being run again. So a
 * job that kills its worker JVM (out of memory, a native crash) is tried at most
 * {@code maxAttempts} times across all workers, however often Kafka redelivers it. An
 * {@link Error} thrown while processing (e.g. {@link OutOfMemoryError}) fails that attempt like a
 * transient failure, counted in {@code fairpix_worker_job_errors_total}, and the processing
 * thread goes on.
 *
 * <p>An outage is not the job's fault (issue 34). {@link #failure} is the one place that decides
 * what a failure costs: a failure of Redis, Kafka or S3 ({@link com.fairpix.core.resilience.Outages},
 * a refused call of an open breaker included) ends the attempt as {@link Outcome.Parked}: the job
 * keeps its offset and its attempt count and is tried again after a bounded, jittered back-off
 * (1 s doubling to 5 s, ±50 %), as often as it takes. The attempt number its record holds for the
 * parked attempt is remembered here and reused by the next try, so even when that record cannot be
 * corrected (Redis is the dependency that is out) the job's count stays as its own failures made it.
 * Only the job's own failures count: its input (an undecodable image, a tenant's S3 4xx), its
 * processing (a crash, a timeout, an Error).
 */
public final class JobRunner {
    /** Time-to-start histogram buckets: from a few milliseconds (a quiet tenant) to minutes (a backlog). */
    private static final Duration[] QUEUE_WAIT_BUCKETS = java.util.stream.LongStream.of(5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 300_000)
            .mapToObj(Duration::ofMillis).toArray(Duration[]::new);
    private static final Logger log = LoggerFactory.getLogger(JobRunner.class);
    /**
     * Test hook, off unless the system property {@code fairpix.test.crash-variant} (or the
     * environment variable {@code FAIRPIX_TEST_CRASH_VARIANT}) names a variant: a job with a variant
     * of that name halts this JVM once its attempt is recorded, as an out-of-memory kill or a native
     * crash would (integration tests of poison-job containment).
     */
    private static final String CRASH_VARIANT = System.getProperty("fairpix.test.crash-variant", System.getenv("FAIRPIX_TEST_CRASH_VARIANT"));

    private final JobStore jobs;
    private final ResultWriter results;
    private final ImageProcessor pipeline;
    private final EventPublisher events;
    private final MeterRegistry metrics;
    private final TenantTags tenantTags;
    private final Clock clock;
    private final int maxAttempts;
    private final Duration baseBackoff;
    private final BiConsumer<String, String> releaseLease;
    private volatile java.util.function.BooleanSupplier dependencyDown = () -> false;
    private volatile UsageLedger usage = UsageLedger.NONE;
    private volatile com.fairpix.core.admission.TrueUp trueUp;
    private volatile java.util.function.DoubleConsumer overruns = tokens -> {};
    /**
     * Jobs this runner parked for an outage: the attempt number their record holds without it
     * counting (0: none), and how many times in a row they were parked (the back-off's step).
     */
    private final Map<String, Held> held = new java.util.concurrent.ConcurrentHashMap<>();
    private java.util.concurrent.Executor finishers;
    private java.util.concurrent.Semaphore finishSlots;

    /**
     * @param maxAttempts attempts for transient failures before the job is FAILED and dead-lettered
     * @param baseBackoff first retry delay; doubled per attempt
     */
    public JobRunner(JobStore jobs, ResultWriter results, ImageProcessor pipeline, EventPublisher events,
                     MeterRegistry metrics, TenantTags tenantTags, Clock clock, int maxAttempts, Duration baseBackoff) {
        this(jobs, results, pipeline, events, metrics, tenantTags, clock, maxAttempts, baseBackoff, (tenant, jobId) -> {});
    }

    /**
     * @param releaseLease (tenant, job id) → frees the job's admission concurrency lease; called
     *                     whenever an attempt ends with the job terminal or gone (idempotent)
     */
    public JobRunner(JobStore jobs, ResultWriter results, ImageProcessor pipeline, EventPublisher events,
                     MeterRegistry metrics, TenantTags tenantTags, Clock clock, int maxAttempts, Duration baseBackoff,
                     BiConsumer<String, String> releaseLease) {
        this.releaseLease = releaseLease;
        this.tenantTags = tenantTags;
        this.jobs = jobs;
        this.results = results;
        this.pipeline = pipeline;
        this.events = events;
        this.metrics = metrics;
        this.clock = clock;
        this.maxAttempts = maxAttempts;
        this.baseBackoff = baseBackoff;
    }

    /** First back-off after an outage ended an attempt. */
    static final Duration OUTAGE_BACKOFF_FIRST = Duration.ofSeconds(1);
    /** Longest back-off after outages, before jitter: a job is tried again within 1.5 × this of its dependency answering. */
    static final Duration OUTAGE_BACKOFF_MAX = Duration.ofSeconds(5);
    /** Jitter: each back-off is drawn from ±50 % of its step, so parked jobs do not return in one wave. */
    static final double OUTAGE_BACKOFF_JITTER = 0.5;
    /** Most jobs remembered as parked; past it the memory is cleared (their next try may then count). */
    private static final int MAX_HELD = 100_000;

    /**
     * The back-off after the {@code n}th outage in a row (n &gt;= 1): {@link #OUTAGE_BACKOFF_FIRST}
     * doubled per outage up to {@link #OUTAGE_BACKOFF_MAX}, then drawn uniformly from ±
     * {@link #OUTAGE_BACKOFF_JITTER} of that step; milliseconds. (Resilience4j's
     * {@code IntervalFunction.ofExponentialRandomBackoff} caps after the jitter, so at the cap every
     * parked job would come back at the same moment: the wave this is meant to spread.)
     */
    static long outageBackoffMillis(int n) {
        long step = Math.min(OUTAGE_BACKOFF_MAX.toMillis(), OUTAGE_BACKOFF_FIRST.toMillis() << Math.min(20, Math.max(0, n - 1)));
        double spread = 1 + OUTAGE_BACKOFF_JITTER * (2 * java.util.concurrent.ThreadLocalRandom.current().nextDouble() - 1);
        return Math.round(step * spread);
    }

    private record Held(int attempt, int outages) {}

    /** What the consumer does with a job after one attempt. */
    public sealed interface Outcome {
        /**
         * Terminal (or nothing to do): commit the offset.
         *
         * @param processed true when this attempt ran the job (to DONE or FAILED); false when it
         *                  was skipped (no record, already terminal, cancelled meanwhile), so its
         *                  time says nothing about the job's cost
         */
        record Finished(boolean processed) implements Outcome {}

        /**
         * Failed transiently: try again after {@code delay}, freeing the thread meanwhile.
         *
         * @param countsAsAttempt false when a dependency's circuit breaker refused the call: an
         *                        outage must not use up the job's attempts and fail it
         */
        record RetryAfter(Duration delay, boolean countsAsAttempt) implements Outcome {
            public RetryAfter(Duration delay) {
                this(delay, true);
            }
        }

        /**
         * A dependency the attempt needed is out (issue 34): keep the job (its offset stays
         * uncommitted) and try it again after {@code delay}, without spending an attempt.
         *
         * @param dependency {@code redis}, {@code kafka}, {@code s3}, or {@code breaker} when only
         *                   an open breaker beside the failure tells
         * @param delay      the jittered back-off, 0.5-7.5 s
         */
        record Parked(String dependency, Duration delay) implements Outcome {}

        /** The job's record cannot be read or written now: leave it for redelivery. */
        record Redeliver() implements Outcome {}

        /**
         * The image work is done and the job's writes (results to S3, DONE, its event) run on a
         * finishing thread: the processing thread is free for the next job. {@code outcome} is
         * one of the others once the writes end; it never completes exceptionally.
         */
        record Finishing(java.util.concurrent.CompletableFuture<Outcome> outcome) implements Outcome {}
    }

    /**
     * Moves each job's writes off the processing threads: once the image is encoded, its results,
     * DONE transition and event go to {@code finishers}, at most {@code inFlight} jobs at a time (a
     * processing thread waits for room, so finished images never pile up in memory). Without this
     * the processing thread does the writes itself.
     *
     * @param finishers runs the writes; a rejected task is run on the calling thread
     * @param inFlight  jobs whose writes may be pending at once, &gt;= 1
     */
    public JobRunner finishOn(java.util.concurrent.Executor finishers, int inFlight) {
        if (inFlight < 1) throw new IllegalArgumentException("inFlight must be >= 1, got " + inFlight);
        this.finishers = finishers;
        this.finishSlots = new java.util.concurrent.Semaphore(inFlight);
        return this;
    }

    /** Where each finished job's measured usage is counted (docs/usage.md); none unless set. */
    public JobRunner recordUsageIn(UsageLedger ledger) {
        this.usage = ledger;
        return this;
    }

    /**
     * Charges each finished job's measured CPU past its estimate to its tenant
     * ({@link com.fairpix.core.admission.TrueUp}, issue 33); nothing is charged unless set.
     */
    public JobRunner trueUpIn(com.fairpix.core.admission.TrueUp trueUp) {
        this.trueUp = trueUp;
        return this;
    }

    /**
     * Where each finished job's tokens past its charge go, as {@link com.fairpix.core.admission.TrueUp#owed}
     * counts them (tokens; only jobs that owe). The worker's capacity figure counts them, so it is in
     * the tokens tenants are charged, true-up included: counted at the estimate alone, a pool of
     * underestimated jobs would be admitted less work than it does (FloodIT: jobs measured at 1.9 ×
     * their estimate, the worker fed 70 % of its capacity).
     */
    public JobRunner reportOverrunsTo(java.util.function.DoubleConsumer tokens) {
        this.overruns = tokens;
        return this;
    }

    /** Tells the runner when a dependency's circuit breaker is open (transient failures then cost no attempt). */
    public JobRunner dependencyDown(java.util.function.BooleanSupplier down) {
        this.dependencyDown = down;
        return this;
    }

    /**
     * One attempt at the job.
     *
     * @param attempt    1 for the first delivery to this worker; transient failures retry up to
     *                   {@code maxAttempts} with exponential backoff
     * @param enqueuedAt when the job entered the queue (its Kafka record's timestamp); recorded as
     *                   the job's {@code queuedAt}, the start of its queue wait
     */
    public Outcome run(JobMessage message, int attempt, Instant enqueuedAt) throws InterruptedException {
        return run(message, attempt, enqueuedAt, false);
    }

    /**
     * As {@link #run(JobMessage, int, Instant)}.
     *
     * @param ownWrites true for a job on a reserved slot (a tenant with nothing running, first in line
     *                  beside a flood): it writes its results, DONE and event on its own thread, at that
     *                  thread's normal CPU priority, instead of queueing them behind the flood's writes on
     *                  the finishing threads (which run at the shared threads' background priority)
     */
    public Outcome run(JobMessage message, int attempt, Instant enqueuedAt, boolean ownWrites) throws InterruptedException {
        Outcome outcome = runOnce(message, attempt, enqueuedAt, ownWrites);
        if (outcome instanceof Outcome.Finishing f) {
            return new Outcome.Finishing(f.outcome().thenApply(o -> {
                settled(message, o);
                return o;
            }));
        }
        settled(message, outcome);
        return outcome;
    }

    private void settled(JobMessage message, Outcome outcome) {
        if (!(outcome instanceof Outcome.Parked)) held.remove(message.jobId());
        releaseIfFinished(message, outcome);
    }

    private void releaseIfFinished(JobMessage message, Outcome outcome) {
        if (outcome instanceof Outcome.Finished) {
            // Terminal (or already terminal / gone): give the concurrency slot back now rather than
            // at the lease's TTL.
            try {
                releaseLease.accept(message.tenant(), message.jobId());
            } catch (RuntimeException e) {
                log.info("lease of job {} not released ({}); it expires with its TTL", message.jobId(), e.toString());
            }
        }
    }

    private Outcome runOnce(JobMessage message, int attempt, Instant enqueuedAt, boolean ownWrites) throws InterruptedException {
        // The attempt number the record holds once this attempt is written RUNNING (0 until then).
        int[] recorded = new int[1];
        Processed processed;
        try {
            processed = attempt(message, enqueuedAt, recorded);
            if (processed == null) return new Outcome.Finished(false);
            // Interrupted while processing: the watchdog gave up on this attempt (the job is FAILED
            // already) or the worker is stopping. Its results must not be written.
            if (Thread.currentThread().isInterrupted()) throw new InterruptedException("job " + message.jobId() + " interrupted before its writes");
            // A job whose record holds more attempts than this delivery made died with a worker
            // before (a poison job beside it halting the JVM, its writes in flight): it finishes on
            // this thread before the thread takes anything else, so a crash loop cannot charge it
            // an attempt for every worker it takes down. A local retry (attempt == recorded) and
            // a first delivery keep the finishing threads, unless on a reserved slot (ownWrites).
            if (finishers == null || ownWrites || processed.runningJob.attempts() > attempt) {
                processed.finish();
                return new Outcome.Finished(true);
            }
        } catch (Throwable e) {
            return failure(e, message, attempt, recorded);
        }
        return finishElsewhere(processed, message, attempt, recorded);
    }

    /**
     * Hands the job's writes to a finishing thread (see {@link #finishOn}). When none has room
     * within a second (the writes are slow: S3 or Kafka struggling), this thread writes them
     * itself, as without finishing threads: it must not sit out the watchdog's time limit waiting
     * for room.
     */
    private Outcome finishElsewhere(Processed processed, JobMessage message, int attempt, int[] recorded) throws InterruptedException {
        if (!finishSlots.tryAcquire(1, java.util.concurrent.TimeUnit.SECONDS)) return finishHere(processed, message, attempt, recorded);
        java.util.concurrent.CompletableFuture<Outcome> outcome = new java.util.concurrent.CompletableFuture<>();
        Runnable finish = () -> {
            try {
                processed.finish();
                outcome.complete(new Outcome.Finished(true));
            } catch (Throwable e) {
                try {
                    outcome.complete(failure(e, message, attempt, recorded));
                } catch (Throwable again) { // interrupted while stopping: the job is read again
                    outcome.complete(new Outcome.Redeliver());
                }
            } finally {
                finishSlots.release();
            }
        };
        try {
            finishers.execute(finish);
        } catch (Throwable notTaken) { // stopping (rejected), or no thread could be started
            finishSlots.release();
            return finishHere(processed, message, attempt, recorded);
        }
        return new Outcome.Finishing(outcome);
    }

    private Outcome finishHere(Processed processed, JobMessage message, int attempt, int[] recorded) throws InterruptedException {
        try {
            processed.finish();
            return new Outcome.Finished(true);
        } catch (Throwable e) {
            return failure(e, message, attempt, recorded);
        }
    }

    /** What a failure of one attempt (in any step) means for the job. */
    private Outcome failure(Throwable thrown, JobMessage message, int attempt, int[] recorded) throws InterruptedException {
        try {
            throw thrown;
        } catch (Error e) {
            // A processing thread must outlive a job's Error: count it and treat it as a failed attempt.
            metrics.counter(MetricNames.WORKER_JOB_ERRORS, "error", e.getClass().getSimpleName()).increment();
            log.error("job {} of {} threw {} on attempt {}", message.jobId(), message.tenant(), e, Math.max(attempt, recorded[0]));
            return failedAttempt(message, Math.max(attempt, recorded[0]), new IllegalStateException(e.toString(), e));
        } catch (Permanent e) {
            try {
                fail(message, e.reason(), e.getMessage());
                return new Outcome.Finished(true);
            } catch (RuntimeException again) {
                // The verdict stands; only its write waits (the next try reaches it again, uncounted).
                java.util.Optional<com.fairpix.core.resilience.Dependency> out = com.fairpix.core.resilience.Outages.of(again);
                if (out.isPresent()) return parked(message, out.get().id(), recorded[0], again);
                return new Outcome.RetryAfter(backoff(attempt));
            }
        } catch (InterruptedException e) {
            throw e;
        } catch (RuntimeException e) {
            java.util.Optional<com.fairpix.core.resilience.Dependency> out = com.fairpix.core.resilience.Outages.of(e);
            if (out.isPresent()) {
                // Redis, Kafka or S3 is out (or its breaker refused the call): not the job's fault.
                return parked(message, out.get().id(), recorded[0], e);
            }
            if (com.fairpix.core.resilience.ClientErrors.is(e) && !(e instanceof com.fairpix.core.storage.ObjectStore.ObjectNotFoundException)) {
                // S3 or Kafka refused this job's own request (a 400 for its key, a record too large):
                // retrying cannot help, and it says nothing about the dependency. (A missing original
                // keeps its retries: it may not be visible yet.)
                try {
                    fail(message, "request-refused", e.getClass().getSimpleName() + ": " + e.getMessage());
                    return new Outcome.Finished(true);
                } catch (RuntimeException again) {
                    if (com.fairpix.core.resilience.Outages.is(again)) return parked(message, com.fairpix.core.resilience.Outages.of(again).get().id(), recorded[0], again);
                    return new Outcome.RetryAfter(backoff(attempt));
                }
            }
            if (dependencyDown.getAsBoolean()) {
                // This failure (or the ones beside it) just opened a breaker: the outage is not the job's fault.
                return parked(message, "breaker", recorded[0], e);
            }
            return failedAttempt(message, Math.max(attempt, recorded[0]), e);
        } catch (Throwable e) { // a checked exception no step declares: a failed attempt all the same
            return failedAttempt(message, Math.max(attempt, recorded[0]), new IllegalStateException(e.toString(), e));
        }
    }

    /** A failed attempt that counts: FAILED after the last, else a retry after the backoff. */
    private Outcome failedAttempt(JobMessage message, int attempt, RuntimeException e) {
        {
            String reason = e instanceof FairpixException f ? f.reason() : "transient";
            if (attempt >= maxAttempts) {
                log.warn("job {} of {} failed {} times, giving up: {}", message.jobId(), message.tenant(), attempt, LogSafe.of(e.toString()));
                try {
                    fail(message, "attempts-exhausted", reason + ": " + e.getMessage());
                    return new Outcome.Finished(true);
                } catch (RuntimeException again) {
                    java.util.Optional<com.fairpix.core.resilience.Dependency> out = com.fairpix.core.resilience.Outages.of(again);
                    if (out.isPresent()) {
                        // Its attempts are spent; only the FAILED write waits for the dependency. The
                        // next try finds the record's attempts used up and fails it then.
                        held.remove(message.jobId());
                        return parkedFor(message, out.get().id(), 0, again);
                    }
                    log.warn("job {} cannot be marked FAILED ({}); leaving it for redelivery", message.jobId(), again.toString());
                    return new Outcome.Redeliver();
                }
            }
            Duration delay = backoff(attempt);
            log.info("job {} attempt {} failed transiently ({}); retrying in {} ms", message.jobId(), attempt, LogSafe.of(e.toString()), delay.toMillis());
            return new Outcome.RetryAfter(delay);
        }
    }

    /**
     * Ends an attempt that an outage of {@code dependency} cut short: the job keeps its attempts. The
     * attempt number this attempt wrote into the record ({@code recorded}, 0 if it wrote none) is
     * remembered, so the next try reuses it; where the dependency out is not Redis, the record is
     * also given its previous number back, for another worker that may get the job meanwhile.
     */
    private Outcome parked(JobMessage message, String dependency, int recorded, Throwable cause) {
        if (recorded > 0 && !dependency.equals(com.fairpix.core.resilience.Dependency.REDIS.id())) unrecordAttempt(message, recorded);
        Held before = held.get(message.jobId());
        int uncounted = recorded > 0 ? recorded : before != null ? before.attempt() : 0;
        return parkedFor(message, dependency, uncounted, cause);
    }

    private Outcome parkedFor(JobMessage message, String dependency, int uncounted, Throwable cause) {
        if (held.size() >= MAX_HELD) held.clear();
        Held now = held.merge(message.jobId(), new Held(uncounted, 1), (old, x) -> new Held(uncounted, Math.min(old.outages() + 1, 30)));
        Duration delay = Duration.ofMillis(outageBackoffMillis(now.outages()));
        metrics.counter(MetricNames.JOBS_PARKED, "dependency", dependency).increment();
        log.info("job {} of {} parked for {} ms: {} is out ({}); no attempt spent", message.jobId(), message.tenant(), delay.toMillis(), dependency,
                LogSafe.of(String.valueOf(cause)));
        return new Outcome.Parked(dependency, delay);
    }

    /**
     * An attempt a dependency outage refused does not count: the record gets back the attempt
     * number it had before this attempt wrote RUNNING (best effort: if that write fails too, the
     * attempt counts).
     */
    private void unrecordAttempt(JobMessage message, int recorded) {
        if (recorded <= 0) return;
        try {
            jobs.get(message.tenant(), message.jobId())
                    .filter(j -> j.state() == JobState.RUNNING && j.attempts() == recorded)
                    .ifPresent(j -> jobs.transition(j.running(j.startedAt(), j.queuedAt(), recorded - 1), EnumSet.of(JobState.RUNNING)));
        } catch (RuntimeException e) {
            log.debug("attempt {} of job {} stays counted: {}", recorded, message.jobId(), e.toString());
        }
    }

    private Duration backoff(int attempt) {
        return baseBackoff.multipliedBy(1L << Math.min(10, attempt - 1));
    }

    /**
     * @param recorded set to the attempt number written into the record before processing
     * @return the job with its images made, its writes still to do; null when it was skipped
     */
    private Processed attempt(JobMessage message, Instant enqueuedAt, int[] recorded) throws InterruptedException {
        // The job leaves the queue when a processing thread takes it; reading its record is service.
        Instant started = clock.instant();
        Optional<JobRecord> stored = jobs.get(message.tenant(), message.jobId());
        if (stored.isEmpty()) {
            log.warn("job {} of {} has no record (expired?); skipping", message.jobId(), message.tenant());
            return null;
        }
        JobRecord job = stored.get();
        if (job.state().terminal()) {
            // Redelivered after it ended: do no work again, but make sure its event went out
            // (a crash between the DONE write and the publish would otherwise lose it).
            if (job.state() != JobState.CANCELLED && !jobs.eventSent(job)) publish(job);
            log.debug("job {} is already {}; skipping", job.id(), job.state());
            return null;
        }
        // This runner parked the job's last attempt for an outage and its record still holds it:
        // that attempt did not count, and this try takes its number.
        Held parked = held.get(message.jobId());
        boolean resumes = parked != null && parked.attempt() > 0 && job.state() == JobState.RUNNING && job.attempts() == parked.attempt();
        if (!resumes && job.attempts() >= maxAttempts) {
            // Every earlier attempt was recorded and none ended the job: they died with their worker
            // (OOM, native crash, kill). Running it again would only take down another one.
            metrics.counter(MetricNames.WORKER_JOB_ERRORS, "error", "attempts-exhausted").increment();
            throw new Permanent("attempts-exhausted", job.attempts() + " attempts started and none finished (worker.max-attempts = "
                    + maxAttempts + "); the job may crash its worker");
        }
        JobRecord runningJob = job.running(started, enqueuedAt, resumes ? job.attempts() : job.attempts() + 1);
        // Noted before the write: a write that times out may still have reached Redis, and a parked
        // attempt must be known by the number the record may hold.
        recorded[0] = runningJob.attempts();
        JobStore.Transition running = jobs.transition(runningJob, EnumSet.of(JobState.QUEUED, JobState.RUNNING));
        if (!running.applied()) return null; // cancelled or finished meanwhile
        if (CRASH_VARIANT != null && message.spec().variants().containsKey(CRASH_VARIANT)) {
            log.error("test hook fairpix.test.crash-variant: job {} attempt {} halts this worker", job.id(), recorded[0]);
            Runtime.getRuntime().halt(134);
        }
        if (job.state() == JobState.QUEUED) {
            Timer.builder(MetricNames.JOB_QUEUE_WAIT).description("from the job's Kafka record (queued) to its start").tag("tenant", tenantTags.tag(job.tenant())).publishPercentiles(0.5, 0.99)
                    // Buckets too, so p99 can be aggregated across workers (histogram_quantile).
                    .serviceLevelObjectives(QUEUE_WAIT_BUCKETS).register(metrics)
                    .record(Duration.between(runningJob.queuedAt(), started));
        }
        Timer.Sample sample = Timer.start(metrics);
        long cpuStarted = threadCpuNanos();
        byte[] original;
        try {
            original = results.readOriginal(message);
        } catch (SecurityException e) {
            throw new Permanent("forbidden-key", e.getMessage());
        }
        ImageProcessor.Processed made = pipeline.process(message.jobId(), original, message.spec(), key -> results.readAsset(message, key));
        long cpu = threadCpuNanos();
        // In a processor process, its CPU time and peak RSS over the job are the job's. In-process,
        // the thread's CPU time is (OpenCV runs single-threaded on it: OpenCv.load), and peak memory
        // cannot be told apart per job inside one JVM: 0, not measured (docs/usage.md).
        JobRecord measured = made.usage() != null ? runningJob.withUsage(made.usage())
                : cpuStarted < 0 || cpu < 0 ? runningJob : runningJob.withUsage(new JobRecord.Usage((cpu - cpuStarted) / 1_000_000, 0));
        return new Processed(message, measured, made.outputs(), sample);
    }

    /** A job whose images are made: its results, its DONE transition and its event are left to write. */
    private final class Processed {
        private final JobMessage message;
        private final JobRecord runningJob;
        private final Map<String, ImagePipeline.Output> outputs;
        private final Timer.Sample sample;

        Processed(JobMessage message, JobRecord runningJob, Map<String, ImagePipeline.Output> outputs, Timer.Sample sample) {
            this.message = message;
            this.runningJob = runningJob;
            this.outputs = outputs;
            this.sample = sample;
        }

        void finish() {
            Map<String, JobRecord.Result> stored = results.write(message, outputs);
            // The record as this attempt wrote it: the DONE transition below only applies from RUNNING,
            // so re-reading it here would cost a Redis round trip per job for nothing.
            JobRecord done = runningJob.done(clock.instant(), stored);
            JobStore.Transition t = jobs.transition(done, EnumSet.of(JobState.RUNNING));
            sample.stop(Timer.builder(MetricNames.JOB_PROCESSING).tag("result", "done").register(metrics));
            if (t.applied()) {
                // The debt first: a client that sees DONE and submits at once should find it (the
                // event's send can take a while); only a job this attempt finished is charged.
                chargeOverrun(message, done);
                publish(done);
                String tenant = tenantTags.tag(runningJob.tenant());
                metrics.counter(MetricNames.JOBS_COMPLETED, "state", "DONE", "tenant", tenant).increment();
                meterUsage(tenant, done.usage());
            }
        }
    }

    /** A finished job's measured CPU and peak memory into its tenant's series (bounded label {@code tenant}). */
    private void meterUsage(String tenant, JobRecord.Usage usage) {
        if (usage == null) return;
        io.micrometer.core.instrument.Counter.builder(MetricNames.TENANT_JOB_CPU).baseUnit("seconds").tag("tenant", tenant)
                .register(metrics).increment(usage.cpuMillis() / 1000.0);
        if (usage.peakRssBytes() > 0) {
            io.micrometer.core.instrument.DistributionSummary.builder(MetricNames.JOB_PEAK_RSS).baseUnit("bytes").tag("tenant", tenant)
                    .register(metrics).record(usage.peakRssBytes());
        }
    }

    /**
     * The job's measured CPU in tokens against what admission charged: past the calibration's margin,
     * the tenant owes the difference. A debt that cannot be written is logged and dropped; the job
     * itself is done.
     */
    private void chargeOverrun(JobMessage message, JobRecord done) {
        if (done.usage() == null) return;
        double owed = com.fairpix.core.admission.TrueUp.owed(message.cost(), done.usage().cpuMillis() / com.fairpix.core.job.JobCost.MS_PER_TOKEN);
        if (owed <= 0) return;
        overruns.accept(owed);
        com.fairpix.core.admission.TrueUp to = trueUp;
        if (to == null) return;
        try {
            to.owe(message.tenant(), owed);
            metrics.counter(MetricNames.TRUE_UP_TOKENS, "tenant", tenantTags.tag(message.tenant())).increment(owed);
        } catch (RuntimeException e) {
            log.warn("job {} of {} owes {} tokens past its charge; not recorded: {}", message.jobId(), message.tenant(), owed, e.toString());
        }
    }


    /**
     * Counts the finished job's measured usage (once: the ledger marks it), publishes its terminal
     * event (same event id on every try), then notes it was sent. The usage goes first: a job whose
     * event is not marked sent is published again on redelivery, so a count lost to a crash or an
     * outage here is made then.
     */
    private void publish(JobRecord job) {
        if (job.state() == JobState.DONE || job.state() == JobState.FAILED) usage.record(job);
        events.publish(JobEvent.of(job, job.finishedAt()));
        jobs.markEventSent(job);
    }

    /**
     * Fails a job whose attempt is stuck in one step past every limit (the processing threads'
     * watchdog gives up on it): FAILED {@code timeout}, one dead-letter record, its event.
     *
     * @param ran how long the attempt had run
     */
    public void abandon(JobMessage message, Duration ran) {
        fail(message, "timeout", "processing ran " + ran.toSeconds() + " s inside one step, past worker.job-timeout-seconds; the attempt was abandoned");
    }

    private void fail(JobMessage message, String reason, String detail) {
        Optional<JobRecord> stored = jobs.get(message.tenant(), message.jobId());
        if (stored.isEmpty() || stored.get().state().terminal()) return;
        JobRecord failed = stored.get().failed(clock.instant(), reason, detail);
        JobStore.Transition t = jobs.transition(failed, EnumSet.of(JobState.QUEUED, JobState.RUNNING));
        if (t.applied()) {
            log.info("job {} of {} FAILED: {} ({})", message.jobId(), message.tenant(), reason, LogSafe.of(detail));
            events.deadLetter(message, reason, detail);
            publish(failed);
            metrics.counter(MetricNames.JOBS_COMPLETED, "state", "FAILED", "tenant", tenantTags.tag(message.tenant())).increment();
        }
    }

    /** This thread's CPU time, nanoseconds; -1 where the JVM cannot tell. */
    private static long threadCpuNanos() {
        java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
        return bean.isCurrentThreadCpuTimeSupported() ? bean.getCurrentThreadCpuTime() : -1;
    }
}
