package com.fairpix.worker.consume;

/**
 * Turns measured processing time into a correction of a job's estimated cost. The worker keeps an
 * exponentially weighted moving average of seconds per cost unit over all jobs; a job that took
 * longer than that rate predicts for its estimate is charged the difference, in cost units, to its
 * tenant. Estimates (megapixels × operations) thus stay the currency, and the clock keeps them
 * honest. Thread-safe.
 */
final class CostModel {
    /** Weight of the newest observation in the moving average. */
    private static final double ALPHA = 0.05;
    private double secondsPerUnit = Double.NaN;

    /** @return actual minus estimated cost, in cost units (0 for the first observation) */
    synchronized double correction(double estimatedCost, double seconds) {
        if (!(estimatedCost > 0) || !(seconds >= 0)) return 0;
        double rate = seconds / estimatedCost;
        if (Double.isNaN(secondsPerUnit)) {
            secondsPerUnit = rate;
            return 0;
        }
        double actual = seconds / secondsPerUnit;
        secondsPerUnit = (1 - ALPHA) * secondsPerUnit + ALPHA * rate;
        return actual - estimatedCost;
    }
}
