package com.fairpix.core.admission;

/**
 * One token bucket, continuously refilled, in fixed point: tokens in nanotokens, the refill rate in
 * millitokens/s, time in µs, so a refill is one exact product {@code µs × mtok/s = ntok}. Every
 * token bucket of fairpix's Java code is this one: admission's guaranteed, ceiling and pool buckets
 * ({@code LocalAdmission}, {@code PoolLease}), a node's read and refusal budgets
 * ({@code TenantBuckets}) and the overload guard's ramp ({@code RampBucket}).
 *
 * <p><b>Its Lua twin</b> is {@code ingest-api/src/main/resources/admission/buckets.lua}, put in front
 * of the admission scripts: {@link #refill}, {@link #wait}, {@link #untilFull} and {@link #ceilDiv}
 * are its functions line by line, and {@code TokenBucketLuaTwinIT} runs one sequence of requests
 * through this class and through {@code admission.lua} on Redis and finds the same decisions and the
 * same tokens left. Both stay exact because every value stays below 2^53 (Lua numbers are doubles)
 * as long as rates and bursts are at most 10^6 tokens (admission's {@code Limits} caps them).
 *
 * <p>The rate and the burst are passed to each call, not kept: a hot-reloaded tenant, a ramp whose
 * rate moves, a node count that changes apply at the next call. Time is a parameter too (µs; a
 * monotonic clock's nanoseconds through {@link #micros}); a call at a time before the last one
 * refills nothing. Not thread-safe: its owner guards it (admission holds the tenant's lock, the
 * budgets a map's compute).
 */
public final class TokenBucket {
    /** Nanotokens in a token. */
    public static final long NANO = 1_000_000_000L;

    private long tokens;
    private long at;

    private TokenBucket(long tokens, long at) {
        this.tokens = tokens;
        this.at = at;
    }

    /** A bucket holding {@code tokensNano} nanotokens (negative: a debt) at {@code atMicros}. */
    public static TokenBucket holding(long tokensNano, long atMicros) {
        return new TokenBucket(tokensNano, atMicros);
    }

    /**
     * The bucket's tokens at {@code nowMicros}, refilled since the last call.
     *
     * @param rateMilli refill rate, millitokens/s (≥ 1; 0 or less refills nothing)
     * @param burstNano capacity, nanotokens
     * @return nanotokens (negative = debt)
     */
    public long tokens(long nowMicros, long rateMilli, long burstNano) {
        tokens = rateMilli > 0 ? refill(tokens, at, nowMicros, rateMilli, burstNano) : Math.min(tokens, burstNano);
        at = Math.max(at, nowMicros);
        return tokens;
    }

    /**
     * Takes {@code costNano} if the bucket holds that much at {@code nowMicros}.
     *
     * @return whether it did; the bucket is unchanged (but refilled) when not
     */
    public boolean tryTake(long costNano, long nowMicros, long rateMilli, long burstNano) {
        if (tokens(nowMicros, rateMilli, burstNano) < costNano) return false;
        tokens -= costNano;
        return true;
    }

    /**
     * Takes {@code costNano} whatever the bucket holds, no lower than {@code floorNano} (a debt, repaid
     * at the refill rate; {@link Long#MIN_VALUE} for no floor).
     *
     * @return nanotokens left
     */
    public long charge(long costNano, long floorNano, long nowMicros, long rateMilli, long burstNano) {
        tokens = Math.max(tokens(nowMicros, rateMilli, burstNano) - costNano, floorNano);
        return tokens;
    }

    /**
     * The tokens at {@code now} of a bucket that held {@code tokens} at {@code last}.
     *
     * <p>Overflow-safe after any idle time: the elapsed time is compared with the time to fill
     * before it is multiplied, so the product is at most {@code deficit + rate}.
     *
     * @param tokens nanotokens at {@code last} (negative = debt)
     * @param last   µs
     * @param now    µs
     * @param rate   millitokens/s (≥ 1)
     * @param cap    nanotokens
     * @return nanotokens
     */
    public static long refill(long tokens, long last, long now, long rate, long cap) {
        if (tokens >= cap) return cap; // also a burst lowered by a hot reload
        long elapsed = now - last;
        if (elapsed <= 0) return tokens;
        long toFull = ceilDiv(cap - tokens, rate);
        if (elapsed >= toFull) return cap;
        return tokens + elapsed * rate; // nanotokens = µs × millitokens/s
    }

    /** µs until a bucket holding {@code tokens} nanotokens holds {@code need}, at {@code rate} millitokens/s; 0 when it already does. */
    public static long wait(long tokens, long need, long rate) {
        return tokens >= need ? 0 : ceilDiv(need - tokens, rate);
    }

    /** µs until a bucket holding {@code tokens} nanotokens is full again at {@code rate} millitokens/s; 0 when it is. */
    public static long untilFull(long tokens, long rate, long cap) {
        return tokens >= cap ? 0 : ceilDiv(cap - tokens, rate);
    }

    /** {@code a / b} rounded up ({@code b > 0}): waits are never rounded in the client's favour. */
    public static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }

    /** Tokens/s as millitokens/s, rounded, at least 1 (rates resolve to 0.001 token/s). */
    public static long milli(double tokensPerSecond) {
        return Math.max(1, Math.round(tokensPerSecond * 1000));
    }

    /** Tokens as nanotokens, rounded. */
    public static long nano(double tokens) {
        return Math.round(tokens * NANO);
    }

    /** Nanotokens as tokens. */
    public static double tokens(long nano) {
        return nano / (double) NANO;
    }

    /** A monotonic clock's nanoseconds as the µs the arithmetic counts in (rounded down). */
    public static long micros(long nanos) {
        return Math.floorDiv(nanos, 1000);
    }
}
