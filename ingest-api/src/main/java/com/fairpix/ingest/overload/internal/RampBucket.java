package com.fairpix.ingest.overload.internal;

import java.util.function.LongSupplier;

/**
 * This node's admission budget during a ramped recovery: a token bucket whose refill rate is the
 * ramp level × the farm's normal capacity ÷ live ingest nodes, tokens/s, holding at most one
 * second of it. Time comes from {@code nanos} (tests move it by hand).
 */
final class RampBucket {
    private final LongSupplier nanos;
    private double tokens;
    private long last;

    RampBucket(LongSupplier nanos) {
        this.nanos = nanos;
        this.last = nanos.getAsLong();
    }

    /**
     * @param rate tokens/s now
     * @param cost tokens this request costs
     * @return whether it fits (and was taken)
     */
    synchronized boolean tryTake(double rate, double cost) {
        long now = nanos.getAsLong();
        double burst = Math.max(rate, cost);
        tokens = Math.min(burst, tokens + rate * (now - last) / 1e9);
        last = now;
        if (tokens < cost) return false;
        tokens -= cost;
        return true;
    }
}
