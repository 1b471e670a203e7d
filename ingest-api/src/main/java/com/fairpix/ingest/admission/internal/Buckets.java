package com.fairpix.ingest.admission.internal;

/**
 * Token-bucket arithmetic in fixed point (nanotokens, millitokens/s, µs), lazily refilled on
 * access. {@code buckets.lua} (in front of both admission scripts) mirrors these functions line by line; both stay exact because
 * every intermediate value is below 2^53 (see {@link com.fairpix.ingest.admission.Limits}).
 */
final class Buckets {
    private Buckets() {}

    /**
     * The bucket's tokens at {@code now}.
     *
     * <p>Overflow-safe after any idle time: the elapsed time is compared with the time to fill
     * before it is multiplied, so the product is at most {@code deficit + rate}.
     *
     * @param tokens nanotokens at {@code last} (negative = debt)
     * @param rate   millitokens/s (≥ 1)
     * @param cap    nanotokens
     */
    static long refill(long tokens, long last, long now, long rate, long cap) {
        if (tokens >= cap) return cap; // also a burst lowered by a hot reload
        long elapsed = now - last;
        if (elapsed <= 0) return tokens;
        long toFull = ceilDiv(cap - tokens, rate);
        if (elapsed >= toFull) return cap;
        return tokens + elapsed * rate; // nanotokens = µs × millitokens/s
    }

    /** µs until a bucket holding {@code tokens} holds {@code need}; 0 when it already does. */
    static long wait(long tokens, long need, long rate) {
        return tokens >= need ? 0 : ceilDiv(need - tokens, rate);
    }

    static long ceilDiv(long a, long b) { return -Math.floorDiv(-a, b); }
}
