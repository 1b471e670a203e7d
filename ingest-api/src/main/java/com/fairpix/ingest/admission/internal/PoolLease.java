package com.fairpix.ingest.admission.internal;

import com.fairpix.core.admission.TokenBucket;
import com.fairpix.ingest.admission.Limits;
import java.util.function.LongSupplier;

/**
 * One ingest node's share of a pool's borrowing bucket: tokens it leased from the farm-wide bucket
 * (in Redis) and spends locally, so no per-decision script touches the farm-wide key and a
 * decision's keys are one tenant's alone (one Redis Cluster slot).
 *
 * <p>Every admission of a tenant that may borrow goes through the pool, as in the single-bucket
 * limiter: a guaranteed admission takes its cost from the pool too (so borrowers only get what
 * guarantees leave idle), a borrowed one needs the cost in hand. {@code held} is what the node
 * holds, in nanotokens; it goes negative when guaranteed admissions took more than it held, and
 * that debt is settled with the next lease. A lease moves tokens, it does not create them: asked
 * for {@code max(chunk, cost) − held}, the bucket grants what it has after the debt, so on one node
 * {@code held + bucket} is exactly the single bucket's balance and decisions are the same.
 *
 * <p>Error bound across N nodes (docs/admission.md, "The pool lease"): a node that decides one
 * request at a time holds at most {@code max(chunk, largest cost)} tokens taken from the bucket and
 * owes at most {@code chunk + largest cost} not yet settled (it leases once its debt passes a
 * chunk), so over any window the pool lends at most {@code N × (2 × chunk + 2 × largest cost)}
 * tokens more than one shared bucket would. Each decision in flight at once on a node may add one
 * cost to either side, and a forced {@link #charge} is owed until the node's next decision.
 * {@code chunk = C × lease period} (50 ms by default: 9 tokens at C = 180/s).
 *
 * <p>A lease is one Redis round trip that one thread makes at a time; a thread that needs one while
 * another is under way waits for it (up to 0.5 s), and after a failed lease threads decide on what
 * the node holds for 1 s instead of retrying it one timeout after another. Sources: Bucket4j's {@code Optimizations.batching()/delaying()} for
 * distributed buckets and the token-server pattern (a central bucket hands out tokens, clients
 * spend them locally, as in Sentinel's cluster flow control).
 */
final class PoolLease {
    /** The farm-wide bucket a node leases from (Redis in production, a fake in unit tests). */
    interface Bucket {
        /**
         * Refills the pool's bucket, debits {@code settleNano} unconditionally (down to −burst),
         * then grants up to {@code wantNano} of what it holds.
         *
         * @param nowMicros µs since the epoch, or −1 for the bucket's own clock (Redis {@code TIME})
         * @throws redis.clients.jedis.exceptions.JedisException when Redis is unreachable
         */
        Grant lease(long rateMilli, long burstNano, long settleNano, long wantNano, long nowMicros);
    }

    /** @param grantedNano tokens handed to the node; @param leftNano tokens left in the bucket; @param nowMicros the bucket's time */
    record Grant(long grantedNano, long leftNano, long nowMicros) {}

    /**
     * What one decision may spend from the pool.
     *
     * @param reservedNano the decision's cost, taken from what the node holds, or 0 when it holds too little
     * @param waitMicros   when nothing is reserved: µs until the pool could lend the cost (an estimate; 0 when unknown)
     */
    record Reservation(long reservedNano, long waitMicros) {}

    private final Bucket bucket;
    private final long leaseMicros;
    /** The node's clock, µs: the test clock, or a monotonic one; only differences are used. */
    private final LongSupplier clock;

    private long held;
    private boolean known;
    private long remoteNano;
    private long remoteAt;
    private boolean leasing;
    private long failedAt = Long.MIN_VALUE / 2;

    /** How long a decision waits for another thread's lease (µs, node clock): longer than a healthy round trip, shorter than a Redis timeout. */
    static final long WAIT_FOR_LEASE_MICROS = 500_000L;
    /** After a failed lease, threads decide on what the node holds for this long (µs, node clock) instead of retrying it one after another. */
    static final long FAILED_LEASE_BACKOFF_MICROS = 1_000_000L;

    /**
     * @param leaseMicros the lease period P, µs (> 0): a lease asks for C × P tokens
     * @param clock       µs; the same clock for every call, which also bounds the wait for another thread's lease
     */
    PoolLease(Bucket bucket, long leaseMicros, LongSupplier clock) {
        this.bucket = bucket;
        this.leaseMicros = leaseMicros;
        this.clock = clock;
    }

    /**
     * Reserves {@code cost} for a decision that may borrow, leasing first when the node holds too
     * little and the bucket may have it, or when the node's debt passed a chunk.
     *
     * @param testMicros µs passed to the bucket (the test clock), or −1 for its own clock
     * @throws redis.clients.jedis.exceptions.JedisException from the lease
     */
    Reservation reserve(Limits l, long cost, long testMicros) {
        long chunk = chunk(l);
        long settle;
        long want;
        synchronized (this) {
            long waitUntil = clock.getAsLong() + WAIT_FOR_LEASE_MICROS;
            while (true) {
                long now = clock.getAsLong();
                boolean short_ = held < cost && Math.max(held, 0) + estimate(l, now) >= cost;
                if (!short_ && held >= -chunk) return take(l, cost, now);
                // A lease that just failed is not retried by every waiting thread in turn (one
                // timeout each): they decide on what the node holds until the back-off ends.
                if (now - failedAt < FAILED_LEASE_BACKOFF_MICROS) return take(l, cost, now);
                if (!leasing) break;
                // Another thread is leasing: wait for its answer rather than be refused for want
                // of tokens that are on their way (bounded: a lease takes one round trip).
                long left = waitUntil - now;
                if (left <= 0) return take(l, cost, now);
                try {
                    java.util.concurrent.TimeUnit.MICROSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return take(l, cost, now);
                }
            }
            leasing = true;
            settle = Math.max(0, -held);
            want = Math.max(chunk, cost) - Math.max(held, 0);
        }
        Grant g = null;
        try {
            g = bucket.lease(l.poolRateMilli(), l.poolBurstNano(), settle, want, testMicros);
        } finally {
            synchronized (this) {
                leasing = false;
                if (g != null) {
                    held += settle + g.grantedNano();
                    remoteNano = g.leftNano();
                    remoteAt = clock.getAsLong();
                    known = true;
                    failedAt = Long.MIN_VALUE / 2;
                } else {
                    failedAt = clock.getAsLong();
                }
                notifyAll();
            }
        }
        synchronized (this) {
            return take(l, cost, clock.getAsLong());
        }
    }

    /**
     * The decision is made: a reservation the script used (path 1 or 2) is spent; a guaranteed
     * admission without a reservation is owed; anything else is handed back.
     *
     * @param path 0 refused or shadowed, 1 admitted on the guarantee, 2 borrowed
     */
    synchronized void settle(Reservation r, long cost, int path) {
        if (path == 0) held += r.reservedNano();
        else if (r.reservedNano() == 0) held -= cost;
    }

    /** A forced charge: the pool pays for it too, settled with the next lease. */
    synchronized void charge(long cost) {
        held -= cost;
    }

    /** Tokens this node holds (negative: owed), nanotokens. */
    synchronized long held() { return held; }

    private Reservation take(Limits l, long cost, long now) {
        if (held >= cost) {
            held -= cost;
            return new Reservation(cost, 0);
        }
        long available = Math.max(held, 0) + estimate(l, now);
        return new Reservation(0, available >= cost ? 0 : TokenBucket.wait(available, cost, l.poolRateMilli()));
    }

    /**
     * An upper bound on the bucket's tokens now: what it had after this node's last lease plus its
     * refill since (other nodes only ever take from it); a full bucket before the first lease.
     */
    private long estimate(Limits l, long now) {
        if (!known) return l.poolBurstNano();
        return TokenBucket.refill(remoteNano, remoteAt, now, l.poolRateMilli(), l.poolBurstNano());
    }

    /** Tokens one lease asks for: the pool's capacity over one lease period, at least one nanotoken. */
    private long chunk(Limits l) {
        long c;
        try {
            c = Math.multiplyExact(l.poolRateMilli(), leaseMicros); // nanotokens = millitokens/s × µs
        } catch (ArithmeticException e) {
            c = Long.MAX_VALUE;
        }
        return Math.max(1, Math.min(c, l.poolBurstNano()));
    }
}
