package com.fairpix.core.job;

import java.time.Instant;
import java.util.Map;

/**
 * A job lifecycle event on {@code fairpix.events}, keyed by tenant id.
 *
 * A job's completion, the one kind of event the farm publishes (webhooks notify of it): a tenant
 * learns of its job's queueing from its 202 and of a cancellation from its own DELETE.
 *
 * @param eventId deterministic per (job, state), so a re-processed job emits no second id
 * @param type    {@link #SUCCEEDED} or {@link #FAILED}
 * @param jobVersion grows with every transition of the job, re-runs included (attempt × 4 + stage),
 *                so a receiver can order a job's notifications; 0 in events from before it existed
 */
public record JobEvent(
        int schemaVersion,
        String eventId,
        String type,
        Instant timestamp,
        String jobId,
        String tenant,
        JobState state,
        Map<String, JobRecord.Result> results,
        JobRecord.Error error,
        long jobVersion) {
    public static final int SCHEMA_VERSION = 1;
    public static final String SUCCEEDED = "job.succeeded";
    public static final String FAILED = "job.failed";

    /**
     * The completion event of a finished job.
     *
     * @throws IllegalArgumentException when the job is not DONE or FAILED
     */
    public static JobEvent of(JobRecord job, Instant at) {
        String type = switch (job.state()) {
            case DONE -> SUCCEEDED;
            case FAILED -> FAILED;
            case QUEUED, RUNNING, CANCELLED -> throw new IllegalArgumentException("no event is published for a " + job.state() + " job (" + job.id() + ")");
        };
        return new JobEvent(SCHEMA_VERSION, "evt_" + job.id() + "_" + job.state().name().toLowerCase(),
                type, at, job.id(), job.tenant(), job.state(), job.results(), job.error(), version(job));
    }

    /** attempt × 4 + stage (queued 0, running 1, terminal 2): increases with every transition, re-runs included. */
    static long version(JobRecord job) {
        int stage = switch (job.state()) {
            case QUEUED -> 0;
            case RUNNING -> 1;
            case DONE, FAILED, CANCELLED -> 2;
        };
        return job.attempts() * 4L + stage;
    }
}
