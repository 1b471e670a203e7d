package com.fairpix.core.job;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import redis.clients.jedis.UnifiedJedis;

/**
 * Job records: each job's current {@link JobRecord} under its tenant, a per-tenant index by id
 * (UUIDv7, so by creation time), the owner of each id, and whether its terminal event went out.
 * Transitions are compare-and-set: two workers racing on one job (a redelivery) cannot move a DONE
 * job back to RUNNING.
 *
 * <p>Redis in production ({@link #redis}); tests use an in-memory one.
 */
public interface JobStore {
    /**
     * The store in Redis.
     *
     * @param retentionSeconds how long a record lives after its last change, seconds
     */
    static JobStore redis(UnifiedJedis redis, long retentionSeconds) {
        return new RedisJobStore(redis, retentionSeconds);
    }

    /**
     * Stores a new record, its index entry and its owner. Idempotent: a retried call cannot write twice.
     *
     * @throws redis.clients.jedis.exceptions.JedisException when Redis is away or refuses a write
     */
    void create(JobRecord job);

    /** The job if it exists and belongs to {@code tenant}; another tenant's job is simply absent. */
    Optional<JobRecord> get(String tenant, String jobId);

    /** The owning tenant of a job id (admin look-ups only). */
    Optional<String> tenantOf(String jobId);

    /**
     * Writes {@code next} if the stored state is one of {@code from}. A repeated call whose write is
     * already there (a client re-sending after a timeout) reports applied.
     *
     * @return the outcome, with the state found
     */
    Transition transition(JobRecord next, Set<JobState> from);

    /** Notes that the job's terminal event was published (kept beside the record, same lifetime). */
    void markEventSent(JobRecord job);

    /** True when the event of the job's current terminal state was published. */
    boolean eventSent(JobRecord job);

    /** A page's most bytes of job records when the caller names none, 1 MiB ({@code api.list-max-bytes}'s default). */
    long DEFAULT_PAGE_BYTES = 1L << 20;

    /** {@link #list(String, String, int, long)} within {@link #DEFAULT_PAGE_BYTES}. */
    default Page list(String tenant, String cursor, int limit) {
        return list(tenant, cursor, limit, DEFAULT_PAGE_BYTES);
    }

    /**
     * A page of a tenant's jobs, newest first, read in one round trip.
     *
     * @param cursor   the last id of the previous page, or null for the first page
     * @param limit    1–100
     * @param maxBytes the page's most bytes of records (their JSON): it ends before the record that
     *                 would pass this, with a next cursor; it always holds at least one record
     */
    Page list(String tenant, String cursor, int limit, long maxBytes);

    /** @param found the state before the call; null when the record does not exist */
    record Transition(boolean applied, JobState found) {}

    /** @param nextCursor pass as {@code cursor} for the next page; null at the end */
    record Page(List<JobRecord> jobs, String nextCursor) {}
}
