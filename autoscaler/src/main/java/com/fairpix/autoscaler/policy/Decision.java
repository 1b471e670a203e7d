package com.fairpix.autoscaler.policy;

import java.time.Instant;

/**
 * What the autoscaler decided for one pool in one evaluation period, with the inputs that led to it
 * (the decision log). The event the policy emits.
 *
 * @param current        replicas the actuator reported before the decision
 * @param desired        replicas after the decision
 * @param recommendation the policy's raw recommendation before step caps and stabilisation; null
 *                       when the reading failed
 */
public record Decision(String pool, Instant at, int current, int desired, Integer recommendation, Reason reason,
                       String detail, Inputs inputs) {

    /**
     * The numbers behind a decision.
     *
     * @param qps                ingest jobs/s
     * @param lag                consumer lag, messages
     * @param backlog            lag × cost per job, cost units
     * @param growthPerSecond    backlog change since the previous good reading, cost units/s
     * @param partitionsWithLag  the cap on useful replicas
     * @param proportional       ceil(backlog / target per replica)
     * @param qpsTrigger         QPS threshold held for its sustain time
     * @param growthTrigger      backlog and growth thresholds held for their sustain time
     * @param stabilized         highest recommendation in the stabilization window
     */
    public record Inputs(double qps, long lag, double backlog, double growthPerSecond, int partitions, int partitionsWithLag,
                         int proportional, boolean qpsTrigger, boolean growthTrigger, int stabilized) {
        public static final Inputs NONE = new Inputs(0, 0, 0, 0, 0, 0, 0, false, false, 0);
    }

    public boolean changes() {
        return desired != current;
    }

    /** The same decision overridden by an operator (pause or manual set). */
    public Decision overridden(int newDesired, Reason newReason, String newDetail) {
        return new Decision(pool, at, current, newDesired, recommendation, newReason, newDetail, inputs);
    }

    /** One line for the decision log. */
    public String logLine() {
        return String.format("pool=%s %s %d->%d rec=%s qps=%.1f lag=%d backlog=%.0f growth=%.1f/s partitionsWithLag=%d/%d proportional=%d qpsTrigger=%s growthTrigger=%s stabilized=%d: %s",
                pool, reason, current, desired, recommendation, inputs.qps(), inputs.lag(), inputs.backlog(), inputs.growthPerSecond(),
                inputs.partitionsWithLag(), inputs.partitions(), inputs.proportional(), inputs.qpsTrigger(), inputs.growthTrigger(),
                inputs.stabilized(), detail);
    }
}
