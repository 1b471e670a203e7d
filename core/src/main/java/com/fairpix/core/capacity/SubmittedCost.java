package com.fairpix.core.capacity;

import com.fairpix.core.redis.RedisKeys;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * The mean cost of the jobs ingest accepted for a pool lately, from the per-second counters every
 * ingest node writes ({@link RedisKeys#submissionsPerSecond}, {@link RedisKeys#submittedCostPerSecond}):
 * what turns a lag in messages into a backlog in cost units, for the autoscaler and for backlog shedding.
 */
public final class SubmittedCost {
    /** How far back the mean looks, seconds: long enough to span a burst's jobs, short enough to follow a change of mix. */
    public static final int SECONDS = 60;

    private SubmittedCost() {}

    /**
     * The mean over the last {@value #SECONDS} complete seconds before {@code now}.
     *
     * @return cost units per job; NaN when no job was accepted in that time
     * @throws RuntimeException when Redis does not answer
     */
    public static double meanCostPerJob(UnifiedJedis redis, String pool, Instant now) {
        long last = now.getEpochSecond() - 1;
        String[] keys = new String[2 * SECONDS];
        for (int i = 0; i < SECONDS; i++) {
            keys[2 * i] = RedisKeys.submissionsPerSecond(pool, last - i);
            keys[2 * i + 1] = RedisKeys.submittedCostPerSecond(pool, last - i);
        }
        List<String> values = redis.mget(keys);
        List<String> jobs = new ArrayList<>(SECONDS);
        List<String> costs = new ArrayList<>(SECONDS);
        for (int i = 0; i < SECONDS; i++) {
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
}
