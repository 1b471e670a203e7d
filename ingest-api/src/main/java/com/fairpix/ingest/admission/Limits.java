package com.fairpix.ingest.admission;

import com.fairpix.core.admission.TokenBucket;
import com.fairpix.core.tenant.Tenant;

/**
 * One tenant's limits in the limiter's fixed-point units, built from the {@link Tenant} of the
 * request (so a hot-reloaded tenant takes effect on its next decision) and the farm's
 * {@link AdmissionConfig}.
 *
 * <p>Units, chosen so that a refill is one exact integer product: tokens in <b>nanotokens</b>
 * (1e-9 token), rates in <b>millitokens per second</b>, time in <b>microseconds</b>; then
 * {@code added nanotokens = elapsed µs × rate mtok/s}. Every value stays below 2^53, so the Lua
 * script (whose numbers are IEEE doubles) computes exactly what the Java engine computes. Rates are
 * rounded to the nearest 0.001 token/s.
 *
 * @param rateMilli        guaranteed refill rate, millitokens/s (≥ 1)
 * @param burstNano        guaranteed bucket size, nanotokens
 * @param ceilRateMilli    ceiling rate (guarantee + borrowing), millitokens/s; 0 = no borrowing
 * @param ceilBurstNano    ceiling bucket size, nanotokens; 0 = no borrowing
 * @param dailyQuota       jobs per day
 * @param dayOffsetMicros  start of the quota day after 00:00 UTC, µs
 * @param maxConcurrent    leases held at once
 * @param leaseTtlMicros   lifetime of a lease the worker never released, µs
 * @param poolRateMilli    refill rate of the tenant's pool's borrowing bucket (the farm capacity C), millitokens/s; 0 = no borrowing
 * @param poolBurstNano    size of that bucket, nanotokens; 0 = no borrowing
 */
public record Limits(long rateMilli, long burstNano, long ceilRateMilli, long ceilBurstNano,
                     long dailyQuota, long dayOffsetMicros, int maxConcurrent, long leaseTtlMicros,
                     long poolRateMilli, long poolBurstNano) {
    /** Largest rate accepted, tokens/s; larger ones are clamped (keeps every product below 2^53). */
    public static final double MAX_RATE = 1_000_000;
    /** Largest burst accepted, tokens; larger ones are clamped. */
    public static final double MAX_BURST = 1_000_000;
    public static final long NANO = TokenBucket.NANO;

    /** The limits with the config's own capacity (a pinned {@code admission.farm-capacity}, or none), guarantees unscaled. */
    public static Limits of(Tenant tenant, AdmissionConfig config) {
        return of(tenant, config, FarmShare.fixed(config.farmCapacity()).of(tenant.pool()));
    }

    /**
     * The limits of {@code tenant} in a pool whose share is {@code share}: the guaranteed rate is
     * the share's guarantee for the tenant's rate ({@link FarmShare.Share#guarantee}: guarantees as
     * shares of what the pool does, by max-min or proportional sharing); the
     * burst is not scaled (a job that fits the tenant's burst keeps fitting: a 422 is about the job,
     * never about the farm's size today). With C known and {@code admission.ceiling-factor} above 1
     * the tenant may borrow up to {@code ceil = min(C, rate × ceiling-factor)}, from its configured,
     * unscaled rate: a guarantee scaled down by other tenants' guarantees still borrows what they
     * leave idle.
     */
    public static Limits of(Tenant tenant, AdmissionConfig config, FarmShare.Share share) {
        double configured = Math.min(tenant.rate(), MAX_RATE);
        double rate = share.guarantee(configured);
        double burst = Math.min(tenant.burst(), MAX_BURST);
        long ceilRate = 0;
        long ceilBurst = 0;
        long poolRate = 0;
        long poolBurst = 0;
        double capacity = share.capacity();
        if (capacity > 0 && config.ceilingFactor() > 1) {
            double ceil = Math.min(configured * config.ceilingFactor(), capacity);
            if (ceil > rate) {
                ceilRate = milli(ceil);
                // The ceiling bucket spans the time the configured guarantee's bucket spans (HTB's cburst).
                ceilBurst = nano(Math.min(MAX_BURST, burst * ceil / configured));
                poolRate = milli(capacity);
                poolBurst = nano(config.poolBurst() > 0 ? config.poolBurst() : Math.min(capacity, MAX_BURST));
            }
        }
        return new Limits(milli(rate), nano(burst), ceilRate, ceilBurst, tenant.dailyQuota(),
                config.dayOffset().toNanos() / 1000, tenant.maxConcurrentJobs(), config.leaseTtl().toNanos() / 1000, poolRate, poolBurst);
    }

    /** Whether the tenant may borrow from the farm's pool above its guarantee. */
    public boolean borrowing() { return ceilRateMilli > 0 && ceilBurstNano > 0 && poolRateMilli > 0 && poolBurstNano > 0; }

    /** The largest cost that can ever be admitted, nanotokens. */
    public long maxCostNano() { return borrowing() ? Math.max(burstNano, ceilBurstNano) : burstNano; }

    /**
     * This node's share when Redis is away (fail open): rate, burst and daily quota divided by
     * {@code nodes}, no borrowing (the pool is farm-wide). Across N nodes the farm then admits at
     * most what one shared bucket would.
     */
    public Limits perNode(int nodes) {
        if (nodes <= 1) return new Limits(rateMilli, burstNano, 0, 0, dailyQuota, dayOffsetMicros, maxConcurrent, leaseTtlMicros, 0, 0);
        return new Limits(Math.max(1, rateMilli / nodes), Math.max(1, burstNano / nodes), 0, 0,
                dailyQuota / nodes, dayOffsetMicros, Math.max(1, maxConcurrent / nodes), leaseTtlMicros, 0, 0);
    }

    public static long milli(double tokensPerSecond) { return TokenBucket.milli(tokensPerSecond); }

    public static long nano(double tokens) { return TokenBucket.nano(tokens); }

    /** Nanotokens as tokens. */
    public static double tokens(long nano) { return TokenBucket.tokens(nano); }
}
