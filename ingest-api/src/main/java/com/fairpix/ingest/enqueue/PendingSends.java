package com.fairpix.ingest.enqueue;

import com.fairpix.core.redis.RedisKeys;
import java.time.Instant;
import java.util.ArrayList;
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

    /** The set in Redis, {@link RedisKeys#pendingSends()}: one sorted set for the farm. */
    static PendingSends redis(UnifiedJedis redis) {
        return new PendingSends() {
            @Override
            public void add(String tenant, String jobId, Instant since) {
                redis.zadd(RedisKeys.pendingSends(), since.toEpochMilli(), tenant + "/" + jobId);
            }

            @Override
            public void remove(String tenant, String jobId) {
                redis.zrem(RedisKeys.pendingSends(), tenant + "/" + jobId);
            }

            @Override
            public List<Pending> olderThan(Instant cutoff, int limit) {
                List<Pending> out = new ArrayList<>();
                for (redis.clients.jedis.resps.Tuple t : redis.zrangeByScoreWithScores(RedisKeys.pendingSends(), Double.NEGATIVE_INFINITY, cutoff.toEpochMilli() - 1, 0, limit)) {
                    String member = t.getElement();
                    int slash = member.indexOf('/');
                    if (slash < 0) continue;
                    out.add(new Pending(member.substring(0, slash), member.substring(slash + 1), Instant.ofEpochMilli((long) t.getScore())));
                }
                return out;
            }
        };
    }
}
