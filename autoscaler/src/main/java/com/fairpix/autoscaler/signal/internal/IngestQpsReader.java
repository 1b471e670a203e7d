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
     * Tenant ids known to the farm (the sorted set TenantStore keeps), to attribute backlog; at most
     * the first 10,000 by id — the per-tenant view is informative only.
     */
    public List<String> tenants() {
        return List.copyOf(redis.zrange(RedisKeys.tenants(), 0, 9_999));
    }
}
