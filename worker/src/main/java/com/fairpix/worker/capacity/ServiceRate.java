package com.fairpix.worker.capacity;

/**
 * What one processing thread completes per second of its time, in cost units: the ratio of two
 * exponentially decayed sums over the jobs it ran, cost and wall seconds on the processing thread
 * (so a job's cost counts with its time, and the figure is the rate a busy thread sustains, idle
 * time left out). Times the worker's shared threads, it is the replica's capacity. Wall time, not
 * CPU time: capacity is what the replica delivers on the machine it has, cores shared or not.
 * Each job's weight in the sums decays by {@code 1 − ALPHA} per later job, so the figure follows a
 * change of mix within about 1/ALPHA jobs. Thread-safe.
 */
public final class ServiceRate {
    /** Weight lost per job: about the last 50 jobs count. */
    static final double ALPHA = 0.02;
    /** Jobs observed before there is a figure. */
    static final int WARM_UP = 10;

    private double cost;
    private double seconds;
    private long observed;

    /**
     * @param cost    the job's cost, cost units (> 0 and finite, else ignored)
     * @param seconds wall seconds it held its processing thread (>= 0 and finite, else ignored)
     */
    public synchronized void observe(double cost, double seconds) {
        if (!(cost > 0) || Double.isInfinite(cost) || !(seconds >= 0) || Double.isInfinite(seconds)) return;
        this.cost = (1 - ALPHA) * this.cost + cost;
        this.seconds = (1 - ALPHA) * this.seconds + seconds;
        observed++;
    }

    /** Cost units per second one busy thread completes; NaN before {@value #WARM_UP} jobs or when they took no time. */
    public synchronized double perThread() {
        return observed < WARM_UP || !(seconds > 0) ? Double.NaN : cost / seconds;
    }
}
