package com.fairpix.ingest.http;

import com.fairpix.core.admission.TokenBucket;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * In-memory token buckets ({@link TokenBucket}), one per tenant, for a node's own per-tenant budgets
 * ({@link ReadBudget}, {@link RefusalBudget}): {@code burst} tokens, refilled at {@code perSecond}
 * tokens/s (to 0.001 token/s), counted to the nanotoken. A bucket
 * that is full again is dropped (when next looked at, or by a sweep every {@value #SWEEP_EVERY}
 * calls of {@link #tick}), so memory follows the tenants using the budget now.
 */
final class TenantBuckets {
    /** Every this many {@link #tick}s, buckets that refilled to full are dropped (a power of two). */
    static final int SWEEP_EVERY = 256;

    private final long rateMilli;
    private final long burstNano;
    private final double burst;
    private final LongSupplier nanos;
    /** Guarded by the map's compute. */
    private final ConcurrentHashMap<String, TokenBucket> buckets = new ConcurrentHashMap<>();
    private final AtomicLong ticks = new AtomicLong();

    /**
     * @param perSecond refill rate, tokens/s
     * @param burst     capacity, tokens
     * @param nanos     a monotonic clock, nanoseconds
     */
    TenantBuckets(double perSecond, double burst, LongSupplier nanos) {
        this.rateMilli = TokenBucket.milli(perSecond);
        this.burstNano = TokenBucket.nano(burst);
        this.burst = burst;
        this.nanos = nanos;
    }

    /** Counts one call; every {@value #SWEEP_EVERY}th sweeps. */
    void tick() {
        if ((ticks.incrementAndGet() & (SWEEP_EVERY - 1)) == 0) sweep();
    }

    /** Tokens the tenant has now. */
    double tokens(String tenant) {
        double[] left = {burst};
        buckets.computeIfPresent(tenant, (k, b) -> {
            left[0] = TokenBucket.tokens(refill(b));
            return b;
        });
        return left[0];
    }

    /** Tokens the tenant has now; its bucket is dropped if full again. */
    double tokensDroppingFull(String tenant) {
        double[] left = {burst};
        buckets.computeIfPresent(tenant, (k, b) -> {
            long tokens = refill(b);
            left[0] = TokenBucket.tokens(tokens);
            return tokens >= burstNano ? null : b;
        });
        return left[0];
    }

    /** Takes {@code need} tokens if the tenant has them; says whether it did and what is left. */
    Taken tryTake(String tenant, double need) {
        double[] left = new double[1];
        boolean[] taken = new boolean[1];
        long needNano = TokenBucket.nano(need);
        buckets.compute(tenant, (k, b) -> {
            TokenBucket bucket = b == null ? full() : b;
            long now = TokenBucket.micros(nanos.getAsLong());
            taken[0] = bucket.tryTake(needNano, now, rateMilli, burstNano);
            long tokens = bucket.tokens(now, rateMilli, burstNano);
            left[0] = TokenBucket.tokens(tokens);
            return tokens >= burstNano ? null : bucket;
        });
        return new Taken(taken[0], left[0]);
    }

    /** What {@link #tryTake} did: whether it took, and the tokens left. */
    record Taken(boolean taken, double left) {}

    /** Takes {@code cost} tokens whatever is left: the bucket may go below zero (a debt repaid at the refill rate). */
    void charge(String tenant, double cost) {
        buckets.compute(tenant, (k, b) -> {
            TokenBucket bucket = b == null ? full() : b;
            bucket.charge(TokenBucket.nano(cost), Long.MIN_VALUE, TokenBucket.micros(nanos.getAsLong()), rateMilli, burstNano);
            return bucket;
        });
    }

    /** Drops the buckets that are full again. */
    void sweep() {
        for (String tenant : buckets.keySet()) {
            buckets.computeIfPresent(tenant, (k, b) -> refill(b) >= burstNano ? null : b);
        }
    }

    /** Buckets held now (below full). */
    int size() {
        return buckets.size();
    }

    /** A tenant's new bucket: full now. */
    private TokenBucket full() {
        return TokenBucket.holding(burstNano, TokenBucket.micros(nanos.getAsLong()));
    }

    /** The bucket's nanotokens now. */
    private long refill(TokenBucket b) {
        return b.tokens(TokenBucket.micros(nanos.getAsLong()), rateMilli, burstNano);
    }
}
