package com.fairpix.core.admission;

import com.fairpix.core.redis.RedisKeys;
import java.time.Duration;
import redis.clients.jedis.UnifiedJedis;

/**
 * What a tenant owes for work its jobs cost past their estimate: the worker measures each job's CPU
 * and, where it spent more than admission charged ({@link com.fairpix.core.job.JobCost}) by more than
 * the calibration's margin, adds the difference here, in nanotokens, to {@link RedisKeys#trueUp}
 * (the tenant's slot). Ingest's admission script takes the whole debt out on the tenant's next
 * decision and debits its guaranteed bucket with it, as a forced charge (the bucket may go negative;
 * the tenant then waits until it refills). So a tenant pays what its jobs really cost, whatever
 * their headers claimed, at most one decision late.
 */
public final class TrueUp {
    /**
     * Measured CPU within this fraction over the estimate is the calibration's noise, not owed
     * (the calibration table holds every row within ±30 %, docs/admission.md).
     */
    public static final double MARGIN = 0.3;
    /**
     * And this much, tokens (10 ms of a core), whatever the job: a small job's measured CPU moves by
     * more than 30 % with the machine's load (a 3.0-token thumbnail measured 4.2-5.6 tokens beside
     * other builds on a 2-core VM: caches and a shared core's sibling), which is our noise, not the
     * tenant's work. A job that really costs more than its estimate (a blur of the whole image:
     * 161.8 tokens against 9.3) is far past it.
     */
    public static final double SLACK_TOKENS = 2.0;
    /** An unclaimed debt is dropped after a day: a tenant that never submits again owes nothing we could take. */
    static final Duration KEEP = Duration.ofDays(1);

    private static final String OWE = "redis.call('INCRBY', KEYS[1], ARGV[1]) redis.call('PEXPIRE', KEYS[1], ARGV[2])";

    private final UnifiedJedis redis;

    public TrueUp(UnifiedJedis redis) {
        this.redis = redis;
    }

    /**
     * Tokens a job owes: what its measured CPU stands for past its charge, or 0 while within
     * {@link #MARGIN} of it plus {@link #SLACK_TOKENS}.
     *
     * @param charged   tokens admission charged the job
     * @param measuredTokens its measured CPU in tokens ({@code cpu ms ÷ JobCost.MS_PER_TOKEN})
     */
    public static double owed(double charged, double measuredTokens) {
        return measuredTokens > charged * (1 + MARGIN) + SLACK_TOKENS ? measuredTokens - charged : 0;
    }

    /**
     * Adds {@code tokens} to what {@code tenant} owes.
     *
     * @throws IllegalArgumentException when {@code tokens} is not positive and finite
     * @throws redis.clients.jedis.exceptions.JedisException when Redis cannot be reached
     */
    public void owe(String tenant, double tokens) {
        if (!(tokens > 0) || Double.isInfinite(tokens)) throw new IllegalArgumentException("tokens must be positive, got " + tokens);
        // One script, so the debt never exists without its expiry (every per-tenant key is bounded).
        redis.eval(OWE, java.util.List.of(RedisKeys.trueUp(tenant)), java.util.List.of(Long.toString(Math.round(tokens * 1e9)), Long.toString(KEEP.toMillis())));
    }
}
