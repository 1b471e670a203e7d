package com.fairpix.worker.capacity;

import java.util.concurrent.atomic.DoubleAdder;

/**
 * What a replica completes per second while it has more work than it can start: cost units of the
 * jobs it finished (their writes included) per wall second, over the intervals in which, at both
 * ends, work waited in its scheduler and every processing thread was busy. Exponentially decayed
 * sums of cost and seconds over those intervals, so about the last {@code 1/ALPHA} saturated
 * seconds count; no figure before {@value #WARM_UP_SECONDS} saturated seconds.
 *
 * <p>Why beside {@link ServiceRate}: a processing thread hands a job's writes (S3, Redis, Kafka)
 * off and takes the next, so the rate of image work on the threads leaves out everything else that
 * bounds the replica: the writes, and whatever else the machine runs (measured on this 2-core
 * machine under a flood, with the ingest in the same box: threads' rate 300 cost units/s, jobs
 * actually finished 170). Saturated, the replica's completions are its capacity by definition;
 * unsaturated, they are only its load, so those intervals are left out of {@link #rate()}.
 *
 * <p>But what a replica completed is always a lower bound of what it can do, and admission sizes
 * the load by this figure: a figure that came out low (a JVM warming up, a noisy neighbour) would
 * cap the load below the replica's real capacity, which then never saturates to correct it. So
 * {@link #capacity} is the larger of the saturated rate and the recent completion rate over every
 * interval (same decay): with admission handing out 1.2 × the figure, the load, the completions
 * and the figure ratchet up together until the replica saturates. Thread-safe.
 */
public final class SaturatedThroughput {
    /** Weight lost per saturated second: about the last 30 s count. */
    static final double ALPHA = 1 / 30.0;
    /** Saturated seconds observed before there is a figure. */
    static final double WARM_UP_SECONDS = 10;

    private final DoubleAdder completed = new DoubleAdder();
    private double cost;
    private double seconds;
    private double recentCost;
    private double recentSeconds;
    private double observedSeconds;
    private boolean lastSaturated;
    private long lastNanos;

    /** @param nanoTime now on a monotonic nanosecond clock: the first interval starts here */
    public SaturatedThroughput(long nanoTime) {
        this.lastNanos = nanoTime;
    }

    /** A job finished (its writes done): {@code cost} cost units (> 0 and finite, else ignored). Any thread. */
    public void completed(double cost) {
        if (cost > 0 && Double.isFinite(cost)) completed.add(cost);
    }

    /**
     * Closes the interval since the last sample (call it every second or so).
     *
     * @param saturated whether now work waits in the scheduler and every processing thread is busy
     * @param nanoTime  now on the same clock as the constructor's
     */
    public synchronized void sample(boolean saturated, long nanoTime) {
        double done = completed.sumThenReset();
        double dt = (nanoTime - lastNanos) / 1e9;
        lastNanos = nanoTime;
        boolean counted = saturated && lastSaturated && dt > 0;
        lastSaturated = saturated;
        if (!(dt > 0)) return;
        double keep = Math.pow(1 - ALPHA, dt);
        recentCost = recentCost * keep + done;
        recentSeconds = recentSeconds * keep + dt;
        if (!counted) return;
        cost = cost * keep + done;
        seconds = seconds * keep + dt;
        observedSeconds += dt;
    }

    /** Cost units per second the replica completes while saturated; NaN before {@value #WARM_UP_SECONDS} saturated seconds. */
    public synchronized double rate() {
        return observedSeconds < WARM_UP_SECONDS || !(seconds > 0) ? Double.NaN : cost / seconds;
    }

    /** Cost units per second completed over the recent intervals, saturated or not (the same decay); NaN before {@value #WARM_UP_SECONDS} s. */
    public synchronized double recent() {
        return recentSeconds < WARM_UP_SECONDS ? Double.NaN : recentCost / recentSeconds;
    }

    /**
     * The replica's capacity, cost units/s: the larger of {@link #rate()} and {@link #recent()},
     * and before it has been saturated the larger of {@code fallback} (its threads' rate of image
     * work) and {@link #recent()}; NaN while none of them is known.
     */
    public double capacity(double fallback) {
        double saturatedRate = rate();
        double base = Double.isNaN(saturatedRate) ? fallback : saturatedRate;
        double r = recent();
        if (Double.isNaN(base)) return r;
        return Double.isNaN(r) ? base : Math.max(base, r);
    }
}
