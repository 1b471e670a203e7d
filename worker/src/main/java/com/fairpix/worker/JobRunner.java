package com.fairpix.worker;

import com.fairpix.core.error.JobFailure;
import com.fairpix.core.job.JobEvent;
import com.fairpix.core.job.JobMessage;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.metrics.MetricNames;
import com.fairpix.worker.notify.EventPublisher;
import com.fairpix.worker.process.ImagePipeline;
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
 */
public final class JobRunner {
    private static final Logger log = LoggerFactory.getLogger(JobRunner.class);

    private final JobStore jobs;
    private final ResultWriter results;
    private final ImagePipeline pipeline;
    private final EventPublisher events;
    private final MeterRegistry metrics;
    private final Clock clock;
    private final int maxAttempts;
    private final Duration baseBackoff;
    private final BiConsumer<String, String> releaseLease;

    public JobRunner(JobStore jobs, ResultWriter results, ImagePipeline pipeline, EventPublisher events,
                     MeterRegistry metrics, Clock clock, int maxAttempts, Duration baseBackoff) {
        this(jobs, results, pipeline, events, metrics, clock, maxAttempts, baseBackoff, (tenant, jobId) -> {});
    }

    /**
     * @param maxAttempts attempts for transient failures before the job is FAILED and dead-lettered
     * @param baseBackoff first retry delay; doubled per attempt
     * @param releaseLease (tenant, job id) → frees the job's admission concurrency lease; called
     *                     whenever the job is found or made terminal (idempotent)
     */
    public JobRunner(JobStore jobs, ResultWriter results, ImagePipeline pipeline, EventPublisher events,
                     MeterRegistry metrics, Clock clock, int maxAttempts, Duration baseBackoff,
                     BiConsumer<String, String> releaseLease) {
        this.releaseLease = releaseLease;
        this.jobs = jobs;
        this.results = results;
        this.pipeline = pipeline;
        this.events = events;
        this.metrics = metrics;
        this.clock = clock;
        this.maxAttempts = maxAttempts;
        this.baseBackoff = baseBackoff;
    }

    /**
     * Processes the message; returns when the job is terminal or must be redelivered.
     *
     * @return true when the offset may be committed; false when the job must be redelivered (its
     *         record could not be read or written, e.g. Redis down)
     */
    public boolean run(JobMessage message) throws InterruptedException {
        boolean finished = runAttempts(message);
        if (finished) {
            // Terminal (or skipped as already terminal / gone): give the concurrency slot back now
            // rather than at the lease's TTL.
            try {
                releaseLease.accept(message.tenant(), message.jobId());
            } catch (RuntimeException e) {
                log.info("lease of job {} not released ({}); it expires with its TTL", message.jobId(), e.toString());
            }
        }
        return finished;
    }

    private boolean runAttempts(JobMessage message) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return attempt(message, attempt);
            } catch (JobFailure.Permanent e) {
                fail(message, e.reason(), e.getMessage());
                return true;
            } catch (InterruptedException e) {
                throw e;
            } catch (RuntimeException e) {
                String reason = e instanceof JobFailure f ? f.reason() : "transient";
                if (attempt >= maxAttempts) {
                    log.warn("job {} of {} failed {} times, giving up: {}", message.jobId(), message.tenant(), attempt, e.toString());
                    try {
                        fail(message, "attempts-exhausted", reason + ": " + e.getMessage());
                        return true;
                    } catch (RuntimeException again) {
                        log.warn("job {} cannot be marked FAILED ({}); leaving it for redelivery", message.jobId(), again.toString());
                        return false;
                    }
                }
                long delay = baseBackoff.toMillis() << (attempt - 1);
                log.info("job {} attempt {} failed transiently ({}); retrying in {} ms", message.jobId(), attempt, e.toString(), delay);
                Thread.sleep(delay);
            }
        }
    }

    private boolean attempt(JobMessage message, int attempt) throws InterruptedException {
        Optional<JobRecord> stored = jobs.get(message.tenant(), message.jobId());
        if (stored.isEmpty()) {
            log.warn("job {} of {} has no record (expired?); skipping", message.jobId(), message.tenant());
            return true;
        }
        JobRecord job = stored.get();
        if (job.state().terminal()) {
            log.debug("job {} is already {}; skipping", job.id(), job.state());
            return true;
        }
        Instant started = clock.instant();
        JobStore.Transition running = jobs.transition(job.running(started, job.attempts() + 1), EnumSet.of(JobState.QUEUED, JobState.RUNNING));
        if (!running.applied()) return true; // cancelled or finished meanwhile
        if (job.state() == JobState.QUEUED) {
            Timer.builder(MetricNames.JOB_QUEUE_WAIT).publishPercentiles(0.5, 0.99).register(metrics)
                    .record(Duration.between(message.submittedAt(), started));
        }
        Timer.Sample sample = Timer.start(metrics);
        byte[] original;
        try {
            original = results.readOriginal(message);
        } catch (SecurityException e) {
            throw new JobFailure.Permanent("forbidden-key", e.getMessage());
        }
        Map<String, ImagePipeline.Output> outputs = pipeline.process(original, message.spec());
        Map<String, JobRecord.Result> stored2 = results.write(message, outputs);
        JobRecord done = jobs.get(message.tenant(), message.jobId()).orElse(job.running(started, attempt)).done(clock.instant(), stored2);
        JobStore.Transition t = jobs.transition(done, EnumSet.of(JobState.RUNNING));
        sample.stop(Timer.builder(MetricNames.JOB_PROCESSING).tag("result", "done").register(metrics));
        if (t.applied()) {
            events.publish(JobEvent.of(done, done.finishedAt()));
            metrics.counter(MetricNames.JOBS_COMPLETED, "state", "DONE").increment();
        }
        return true;
    }

    private void fail(JobMessage message, String reason, String detail) {
        Optional<JobRecord> stored = jobs.get(message.tenant(), message.jobId());
        if (stored.isEmpty() || stored.get().state().terminal()) return;
        JobRecord failed = stored.get().failed(clock.instant(), reason, detail);
        JobStore.Transition t = jobs.transition(failed, EnumSet.of(JobState.QUEUED, JobState.RUNNING));
        if (t.applied()) {
            log.info("job {} of {} FAILED: {} ({})", message.jobId(), message.tenant(), reason, detail);
            events.deadLetter(message, reason, detail);
            events.publish(JobEvent.of(failed, failed.finishedAt()));
            metrics.counter(MetricNames.JOBS_COMPLETED, "state", "FAILED").increment();
        }
    }
}
