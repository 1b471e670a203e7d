package com.fairpix.ingest.enqueue;

import com.fairpix.core.redis.RedisKeys;
import java.time.Instant;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * The job messages whose send to Kafka began and was not seen to end, so that a job record
 * written just before an enqueue failure (the client got a 503) cannot stay QUEUED forever: the
 * ingest notes the send before it writes the record and forgets it once Kafka acknowledged (or the
 * record was marked FAILED); {@link JobSubmitter#reconcileOrphans} fails what is left past a
 * deadline. Redis in production ({@link #redis}); tests use their own.
 */
public interface PendingSends {
    /** A send not seen to end: the job, and when it began. */
    record Pending(String tenant, String jobId, Instant since) {}

    /** Keeps nothing: no orphan can be found (a submitter built without one). */
    PendingSends NONE = new PendingSends() {
        @Override public void add(String tenant, String jobId, Instant since) {}
        @Override public void remove(String tenant, String jobId) {}
        @Override public List<Pending> olderThan(Instant cutoff, int limit) { return List.of(); }
    };

    /**
     * Notes that the send of the job's message begins.
     *
     * @throws redis.clients.jedis.exceptions.JedisException when Redis is away (the job is then not accepted)
     */
    void add(String tenant, String jobId, Instant since);

    /**
     * The send ended (acknowledged, or its record marked FAILED): forget it.
     *
     * @throws redis.clients.jedis.exceptions.JedisException when Redis is away
     */
    void remove(String tenant, String jobId);

    /**
     * Sends that began before {@code cutoff}, oldest first, at most {@code limit}.
     *
     * @throws redis.clients.jedis.exceptions.JedisException when Redis is away
     */
    List<Pending> olderThan(Instant cutoff, int limit);

    /**
     * The sends in Redis, spread over {@link RedisKeys#PENDING_SEND_SHARDS} sorted sets
     * ({@link RedisKeys#pendingSends(int)}) by a hash of the job id: every submission adds and
     * removes one note, and one farm-wide set put all of those writes on one Redis Cluster slot.
     * {@link #olderThan} reads every shard (one command each; the sweep runs every 30 s).
     *
     * <p>Why not in the record's own script, one round trip fewer: a script's keys must share a
     * slot, so the note would have to live in a set of the job's tenant ({@code fp:{tenant}:…}),
     * and the sweep would then read one set per tenant of the farm every round; and the removal,
     * after Kafka's acknowledgement, is a round trip of its own either way.
     */
    static PendingSends redis(UnifiedJedis redis) {
        return new RedisPendingSends(redis);
    }
}
