package com.fairpix.worker.run;

import java.util.Arrays;

/**
 * Turns measured processing time (the processing thread's CPU time) into a correction of a job's
 * estimated cost. The worker keeps an
 * exponentially weighted moving average of seconds per cost unit over the jobs it ran; a job that
 * took longer than that rate predicts for its estimate is charged the difference, in cost units, to
 * its tenant. Estimates (tokens, {@link com.fairpix.core.job.JobCost}) thus stay the currency, and the clock keeps them
 * honest.
 *
 * <p>Guarded against the clock's outliers, since a correction moves the tenant's finish tag and a
 * wrong one starves it: the average starts from the median of the first {@value #WARM_UP} jobs
 * (a fresh JVM's first jobs run cold), no correction is made before then, and a job is charged
 * between 1/{@value #MAX_FACTOR} and {@value #MAX_FACTOR} times its estimate. Thread-safe.
 */
final class CostModel {
    /** Weight of the newest observation in the moving average. */
    private static final double ALPHA = 0.05;
    /** Jobs observed before the first correction; their median rate starts the average. */
    static final int WARM_UP = 20;
    /** Bound of a job's charged cost, and of one observation's pull on the average, as a factor of its estimate. */
    static final double MAX_FACTOR = 8;

    private final double[] firstRates = new double[WARM_UP];
    private int observed;
    private double secondsPerUnit = Double.NaN;

    /**
     * @param estimatedCost the job's estimate, cost units
     * @param seconds       how long the job ran
     * @return actual minus estimated cost, in cost units; 0 while warming up or for unusable input
     */
    synchronized double correction(double estimatedCost, double seconds) {
        if (!(estimatedCost > 0) || !(seconds >= 0) || Double.isInfinite(estimatedCost) || Double.isInfinite(seconds)) return 0;
        double rate = seconds / estimatedCost;
        if (observed < WARM_UP) {
            firstRates[observed++] = rate;
            if (observed == WARM_UP) {
                double[] sorted = firstRates.clone();
                Arrays.sort(sorted);
                secondsPerUnit = sorted[WARM_UP / 2];
            }
            return 0;
        }
        if (!(secondsPerUnit > 0)) {
            // Every warm-up job took no measurable time: start the average from this one.
            secondsPerUnit = rate;
            return 0;
        }
        double actual = Math.clamp(seconds / secondsPerUnit, estimatedCost / MAX_FACTOR, estimatedCost * MAX_FACTOR);
        double bounded = Math.clamp(rate, secondsPerUnit / MAX_FACTOR, secondsPerUnit * MAX_FACTOR);
        secondsPerUnit = (1 - ALPHA) * secondsPerUnit + ALPHA * bounded;
        return actual - estimatedCost;
    }
}
