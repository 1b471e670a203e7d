package com.fairpix.autoscaler.signal.internal;

import com.fairpix.core.redis.RedisKeys;
import java.time.Instant;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * Ingest QPS per pool from the per-second counters every ingest node increments in Redis
 * ({@link RedisKeys#submissionsPerSecond}). Only complete seconds count: the current second is
 * still being written.
 */
public final class IngestQpsReader {
    private final UnifiedJedis redis;

    public IngestQpsReader(UnifiedJedis redis) {
        this.redis = redis;
    }

    /**
     * @param seconds how many complete seconds before {@code now} to average over (the evaluation period)
     * @return jobs accepted per second; a missing key is a second with no submission
     * @throws RuntimeException when Redis does not answer
     */
    public double qps(String pool, Instant now, int seconds) {
        long last = now.getEpochSecond() - 1;
        String[] keys = new String[seconds];
        for (int i = 0; i < seconds; i++) keys[i] = RedisKeys.submissionsPerSecond(pool, last - i);
        List<String> values = redis.mget(keys);
        long sum = 0;
        for (String v : values) if (v != null) sum += Long.parseLong(v);
        return (double) sum / seconds;
    }

    /**
     * The mean cost (admission tokens) of the jobs accepted for the pool over the last minute
     * ({@link com.fairpix.core.capacity.SubmittedCost}).
     *
     * @return cost units per job; NaN when no job was accepted in that time
     * @throws RuntimeException when Redis does not answer
     */
    public double costPerJob(String pool, Instant now) {
        return com.fairpix.core.capacity.SubmittedCost.meanCostPerJob(redis, pool, now);
    }

    /** How far back a submission makes a tenant count as active, seconds. */
    static final long ACTIVE_SECONDS = 600;

    /**
     * Tenants that submitted to the pool in the last 10 minutes, to attribute backlog to (at most
     * 1,000, most recent first; the per-tenant view is informative only). Older entries are trimmed.
     */
    public List<String> tenants(String pool, Instant now) {
        String key = RedisKeys.activeTenants(pool);
        redis.zremrangeByScore(key, Double.NEGATIVE_INFINITY, now.getEpochSecond() - ACTIVE_SECONDS);
        return List.copyOf(redis.zrevrangeByScore(key, Double.POSITIVE_INFINITY, now.getEpochSecond() - ACTIVE_SECONDS, 0, 1_000));
    }
}
