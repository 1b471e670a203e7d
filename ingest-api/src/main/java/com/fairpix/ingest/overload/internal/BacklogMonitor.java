package com.fairpix.ingest.overload.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * A pool's backlog as queue time: the seconds its workers need to drain its consumer lag
 * ({@link PoolLag}). Seconds per queued message: with {@code overload.backlog.job-seconds} 0 (the
 * default), measured, the mean cost of recent jobs ÷ the pool's measured capacity (cost units/s
 * over all its replicas); when either is missing (no job accepted in the last minute, which hard
 * shedding itself can cause, or no fresh worker figure) the last measured value for the pool
 * stays, and before any, 1 s. A positive {@code job-seconds} pins it. A failed reading keeps the
 * last good one.
 */
public final class BacklogMonitor implements AutoCloseable {
    /** Seconds per job while the conversion cannot be measured and none is pinned. */
    static final double UNMEASURED_JOB_SECONDS = 1;

    private final PoolLag lag;
    private final double jobSeconds;
    private final ToDoubleFunction<String> meanCostPerJob;
    private final ToDoubleFunction<String> measuredCapacity;
    private final Map<String, Double> seconds = new ConcurrentHashMap<>();
    /** pool → the last measured seconds per queued message. */
    private final Map<String, Double> lastSecondsPerJob = new ConcurrentHashMap<>();

    /**
     * @param lag              the pools' consumer lag; closed with this
     * @param jobSeconds       seconds per queued job; 0 = measured
     * @param meanCostPerJob   pool → the mean cost of the jobs accepted for it lately, cost units
     *                         (NaN: none; it may throw when its store is away), measured mode only
     * @param measuredCapacity pool → its measured capacity, cost units/s (0: none yet), as the
     *                         ingest's FarmCapacity last read it (one reader of the workers' figures)
     */
    public BacklogMonitor(PoolLag lag, double jobSeconds, ToDoubleFunction<String> meanCostPerJob, ToDoubleFunction<String> measuredCapacity) {
        this.lag = lag;
        this.jobSeconds = jobSeconds;
        this.meanCostPerJob = meanCostPerJob;
        this.measuredCapacity = measuredCapacity;
    }

    /** Reads every pool once; throws when the queue does not answer (the last values stay). */
    void read(List<String> pools, Duration timeout) throws Exception {
        for (String pool : pools) {
            long messages = lag.lag(pool, timeout);
            if (jobSeconds > 0) {
                seconds.put(pool, messages * jobSeconds);
                continue;
            }
            double perJob = Double.NaN;
            double costPerSecond = 0;
            try {
                perJob = meanCostPerJob.applyAsDouble(pool);
                costPerSecond = measuredCapacity.applyAsDouble(pool);
            } catch (RuntimeException e) {
                // Redis away: the unmeasured conversion, not a stale or a zero one.
            }
            double perMessage = secondsPerJob(perJob, costPerSecond, lastSecondsPerJob.getOrDefault(pool, UNMEASURED_JOB_SECONDS));
            if (measured(perJob, costPerSecond)) lastSecondsPerJob.put(pool, perMessage);
            seconds.put(pool, messages * perMessage);
        }
    }

    private static boolean measured(double costPerJob, double costPerSecond) {
        return costPerJob > 0 && Double.isFinite(costPerJob) && costPerSecond > 0 && Double.isFinite(costPerSecond);
    }

    /**
     * Seconds of the pool's time per queued message: {@code costPerJob ÷ costPerSecond} when both are
     * measured (positive, finite), else {@code previous} (the last measured value, or
     * {@value #UNMEASURED_JOB_SECONDS} s before any).
     *
     * @param costPerJob    mean cost units of recent jobs (NaN: none)
     * @param costPerSecond the pool's measured capacity, cost units/s (0: no figure)
     */
    static double secondsPerJob(double costPerJob, double costPerSecond, double previous) {
        return measured(costPerJob, costPerSecond) ? costPerJob / costPerSecond : previous;
    }

    /** pool → backlog, work-seconds, as last read. */
    Map<String, Double> seconds() {
        return Map.copyOf(seconds);
    }

    /** Closes the lag reader. */
    @Override
    public void close() {
        lag.close();
    }
}
