package com.fairpix.ingest.overload.internal;

import com.fairpix.core.admission.TokenBucket;
import java.util.function.LongSupplier;

/**
 * This node's admission budget during a ramped recovery: a {@link TokenBucket}, empty at the start,
 * whose refill rate is the ramp level × the farm's normal capacity ÷ live ingest nodes, tokens/s,
 * holding at most one second of it, or the request's cost if larger (so a job bigger than a second
 * of the rate still passes once the bucket holds it). Rate and size move with every call. Time
 * comes from {@code nanos} (tests move it by hand).
 */
final class RampBucket {
    private final LongSupplier nanos;
    private final TokenBucket bucket;

    RampBucket(LongSupplier nanos) {
        this.nanos = nanos;
        this.bucket = TokenBucket.holding(0, TokenBucket.micros(nanos.getAsLong()));
    }

    /**
     * @param rate tokens/s now (0: nothing refills)
     * @param cost tokens this request costs
     * @return whether it fits (and was taken)
     */
    synchronized boolean tryTake(double rate, double cost) {
        // Not TokenBucket.milli: a rate of 0 (no capacity known) must refill nothing, not 0.001/s.
        long rateMilli = Math.round(rate * 1000);
        long costNano = TokenBucket.nano(cost);
        long burstNano = Math.max(TokenBucket.nano(rate), costNano);
        return bucket.tryTake(costNano, TokenBucket.micros(nanos.getAsLong()), rateMilli, burstNano);
    }
}
