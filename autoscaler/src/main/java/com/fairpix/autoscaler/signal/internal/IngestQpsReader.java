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

    /** How far back the mean cost per job looks, seconds: long enough to span a burst's jobs, short enough to follow a change of mix. */
    static final int COST_SECONDS = 60;

    /**
     * The mean cost (admission tokens) of the jobs accepted for the pool over the last
     * {@value #COST_SECONDS} complete seconds, from the per-second cost and job counters.
     *
     * @return cost units per job; NaN when no job was accepted in that time
     * @throws RuntimeException when Redis does not answer
     */
    public double costPerJob(String pool, Instant now) {
        long last = now.getEpochSecond() - 1;
        String[] keys = new String[2 * COST_SECONDS];
        for (int i = 0; i < COST_SECONDS; i++) {
            keys[2 * i] = RedisKeys.submissionsPerSecond(pool, last - i);
            keys[2 * i + 1] = RedisKeys.submittedCostPerSecond(pool, last - i);
        }
        List<String> values = redis.mget(keys);
        List<String> jobs = new java.util.ArrayList<>(COST_SECONDS);
        List<String> costs = new java.util.ArrayList<>(COST_SECONDS);
        for (int i = 0; i < COST_SECONDS; i++) {
            jobs.add(values.get(2 * i));
            costs.add(values.get(2 * i + 1));
        }
        return meanCostPerJob(jobs, costs);
    }

    /**
     * The mean cost per job over seconds whose job count ({@code INCR}) and cost ({@code INCRBYFLOAT})
     * counters read {@code jobs.get(i)} and {@code costs.get(i)} (null: the key does not exist).
     * A second with a count but no cost (a node of an older build) is left out, since it would
     * dilute the mean.
     *
     * @return cost units per job; NaN when no second has both
     */
    public static double meanCostPerJob(List<String> jobs, List<String> costs) {
        long n = 0;
        double cost = 0;
        for (int i = 0; i < jobs.size(); i++) {
            if (jobs.get(i) == null || costs.get(i) == null) continue;
            n += Long.parseLong(jobs.get(i));
            cost += Double.parseDouble(costs.get(i));
        }
        return n == 0 ? Double.NaN : cost / n;
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
