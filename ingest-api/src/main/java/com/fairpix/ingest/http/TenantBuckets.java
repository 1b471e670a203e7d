package com.fairpix.ingest.http;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * In-memory token buckets, one per tenant, for a node's own per-tenant budgets ({@link ReadBudget},
 * {@link RefusalBudget}): {@code burst} tokens, refilled at {@code perSecond} tokens/s. A bucket
 * that is full again is dropped (when next looked at, or by a sweep every {@value #SWEEP_EVERY}
 * calls of {@link #tick}), so memory follows the tenants using the budget now.
 */
final class TenantBuckets {
    /** Every this many {@link #tick}s, buckets that refilled to full are dropped (a power of two). */
    static final int SWEEP_EVERY = 256;

    private final double perSecond;
    private final double burst;
    private final LongSupplier nanos;
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();
    private final AtomicLong ticks = new AtomicLong();

    /** Tokens left and when they were counted; guarded by the map's compute. */
    private static final class Bucket {
        double tokens;
        long at;

        Bucket(double tokens, long at) {
            this.tokens = tokens;
            this.at = at;
        }
    }

    /**
     * @param perSecond refill rate, tokens/s
     * @param burst     capacity, tokens
     * @param nanos     a monotonic clock, nanoseconds
     */
    TenantBuckets(double perSecond, double burst, LongSupplier nanos) {
        this.perSecond = perSecond;
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
            refill(b);
            left[0] = b.tokens;
            return b;
        });
        return left[0];
    }

    /** Tokens the tenant has now; its bucket is dropped if full again. */
    double tokensDroppingFull(String tenant) {
        double[] left = {burst};
        buckets.computeIfPresent(tenant, (k, b) -> {
            refill(b);
            left[0] = b.tokens;
            return b.tokens >= burst ? null : b;
        });
        return left[0];
    }

    /** Takes {@code need} tokens if the tenant has them; says whether it did and what is left. */
    Taken tryTake(String tenant, double need) {
        double[] left = new double[1];
        boolean[] taken = new boolean[1];
        buckets.compute(tenant, (k, b) -> {
            Bucket bucket = b == null ? new Bucket(burst, nanos.getAsLong()) : b;
            refill(bucket);
            if (bucket.tokens >= need) {
                bucket.tokens -= need;
                taken[0] = true;
            }
            left[0] = bucket.tokens;
            return bucket.tokens >= burst ? null : bucket;
        });
        return new Taken(taken[0], left[0]);
    }

    /** What {@link #tryTake} did: whether it took, and the tokens left. */
    record Taken(boolean taken, double left) {}

    /** Takes {@code cost} tokens whatever is left: the bucket may go below zero (a debt repaid at the refill rate). */
    void charge(String tenant, double cost) {
        buckets.compute(tenant, (k, b) -> {
            Bucket bucket = b == null ? new Bucket(burst, nanos.getAsLong()) : b;
            refill(bucket);
            bucket.tokens -= cost;
            return bucket;
        });
    }

    /** Drops the buckets that are full again. */
    void sweep() {
        for (String tenant : buckets.keySet()) {
            buckets.computeIfPresent(tenant, (k, b) -> {
                refill(b);
                return b.tokens >= burst ? null : b;
            });
        }
    }

    /** Buckets held now (below full). */
    int size() {
        return buckets.size();
    }

    private void refill(Bucket b) {
        long now = nanos.getAsLong();
        b.tokens = Math.min(burst, b.tokens + (now - b.at) / 1e9 * perSecond);
        b.at = now;
    }
}
