package com.fairpix.ingest.enqueue;

import java.time.Instant;
import redis.clients.jedis.UnifiedJedis;

/**
 * The farm-wide count of accepted jobs that the autoscaler sums into each pool's ingest QPS and
 * mean cost per job, and that the ingest's {@code FarmCapacity} reads each pool's active tenants
 * from. Best effort: the job is already accepted, and a lost count only makes a reading a little low.
 */
public interface SubmissionCounts {
    /** The counts in Redis, shared by every ingest node. */
    static SubmissionCounts redis(UnifiedJedis redis) {
        return new RedisSubmissionCounts(redis);
    }

    /**
     * Counts one accepted job; never throws.
     *
     * @param at   when it was accepted (its second is the counter's)
     * @param cost its cost, tokens
     */
    void count(String pool, String tenant, Instant at, double cost);
}
