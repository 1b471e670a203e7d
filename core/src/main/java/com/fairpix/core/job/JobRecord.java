package com.fairpix.core.job;

import java.time.Instant;
import java.util.Map;

/**
 * The stored state of one job, as the API shows it.
 *
 * @param createdAt when the ingest accepted the upload
 * @param queuedAt  when the job entered the queue: its Kafka record's timestamp (the broker's append
 *                  time), written by the worker that starts it (null until then);
 *                  {@code startedAt − queuedAt} is the queue wait. A suspended tenant's job that was
 *                  parked and re-queued counts from its re-queueing. Broker and worker clocks
 *                  must agree (NTP) for the difference to mean anything
 * @param original what was uploaded (bytes, SHA-256 hex, pixel size, storage key)
 * @param results  variant name → stored result; filled when DONE
 * @param error    why the job FAILED
 * @param attempts processing attempts so far
 */
public record JobRecord(
        String id,
        String tenant,
        JobState state,
        String pool,
        Instant createdAt,
        Instant queuedAt,
        Instant startedAt,
        Instant finishedAt,
        Original original,
        JobSpec spec,
        Map<String, Result> results,
        Error error,
        int attempts) {

    /** The uploaded original: format (jpeg|png|webp), size in bytes, SHA-256 hex, pixel dimensions. */
    public record Original(String key, String format, long size, String sha256, int width, int height) {}

    /** One stored variant: pixel dimensions, encoded size in bytes. */
    public record Result(String key, String format, String contentType, int width, int height, long size) {}

    /** A failure reason (machine-readable) and message (for people). */
    public record Error(String reason, String message) {}

    /** Started {@code at}; the first attempt's start and queue time are kept on later attempts. */
    public JobRecord running(Instant at, Instant queued, int attempt) {
        return new JobRecord(id, tenant, JobState.RUNNING, pool, createdAt, queuedAt == null ? queued : queuedAt, startedAt == null ? at : startedAt, null,
                original, spec, results, null, attempt);
    }

    public JobRecord done(Instant at, Map<String, Result> newResults) {
        return new JobRecord(id, tenant, JobState.DONE, pool, createdAt, queuedAt, startedAt, at, original, spec, newResults, null, attempts);
    }

    public JobRecord failed(Instant at, String reason, String message) {
        return new JobRecord(id, tenant, JobState.FAILED, pool, createdAt, queuedAt, startedAt, at, original, spec, results, new Error(reason, message), attempts);
    }

    public JobRecord cancelled(Instant at) {
        return new JobRecord(id, tenant, JobState.CANCELLED, pool, createdAt, queuedAt, startedAt, at, original, spec, results, null, attempts);
    }
}
