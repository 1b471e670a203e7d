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
 * @param usage    what the last attempt's image work cost, measured on the thread that did it (null
 *                 until an attempt finished its image work)
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
        int attempts,
        Usage usage) {

    /** A record without usage (a job not processed yet). */
    public JobRecord(String id, String tenant, JobState state, String pool, Instant createdAt, Instant queuedAt, Instant startedAt,
                     Instant finishedAt, Original original, JobSpec spec, Map<String, Result> results, Error error, int attempts) {
        this(id, tenant, state, pool, createdAt, queuedAt, startedAt, finishedAt, original, spec, results, error, attempts, null);
    }

    /**
     * What one job's image work cost.
     *
     * @param cpuMillis    CPU time (user + system) of the thread that read the original and ran the
     *                     pipeline (OpenCV runs single-threaded on it), milliseconds
     * @param peakRssBytes peak resident memory of the job, bytes; 0 when not measured: image work runs
     *                     inside the worker JVM, whose memory cannot be told apart per job
     */
    public record Usage(long cpuMillis, long peakRssBytes) {}

    /** The uploaded original: format (jpeg|png|webp), size in bytes, SHA-256 hex, pixel dimensions. */
    public record Original(String key, String format, long size, String sha256, int width, int height) {}

    /** One stored variant: pixel dimensions, encoded size in bytes. */
    public record Result(String key, String format, String contentType, int width, int height, long size) {}

    /** A failure reason (machine-readable) and message (for people). */
    public record Error(String reason, String message) {}

    /** Started {@code at}; the first attempt's start and queue time are kept on later attempts. */
    public JobRecord running(Instant at, Instant queued, int attempt) {
        return new JobRecord(id, tenant, JobState.RUNNING, pool, createdAt, queuedAt == null ? queued : queuedAt, startedAt == null ? at : startedAt, null,
                original, spec, results, null, attempt, usage);
    }

    public JobRecord done(Instant at, Map<String, Result> newResults) {
        return new JobRecord(id, tenant, JobState.DONE, pool, createdAt, queuedAt, startedAt, at, original, spec, newResults, null, attempts, usage);
    }

    public JobRecord failed(Instant at, String reason, String message) {
        return new JobRecord(id, tenant, JobState.FAILED, pool, createdAt, queuedAt, startedAt, at, original, spec, results, new Error(reason, message), attempts, usage);
    }

    public JobRecord cancelled(Instant at) {
        return new JobRecord(id, tenant, JobState.CANCELLED, pool, createdAt, queuedAt, startedAt, at, original, spec, results, null, attempts, usage);
    }

    /** The same record with the cost of its image work. */
    public JobRecord withUsage(Usage newUsage) {
        return new JobRecord(id, tenant, state, pool, createdAt, queuedAt, startedAt, finishedAt, original, spec, results, error, attempts, newUsage);
    }

}
