package com.fairpix.ingest.admission;

import java.util.Set;

/**
 * The outcome of one admission decision.
 *
 * @param allowed            whether the job is admitted
 * @param violated           policies that rejected it (enforced); empty when allowed
 * @param shadowViolated     policies in shadow mode that would have rejected it (counted only)
 * @param costNano           the job's cost, nanotokens
 * @param retryAfterMicros   for a rejection, the exact wait until every violated policy could
 *                           admit it, µs (0 when allowed or never satisfiable)
 * @param remainingNano      tokens left in the guaranteed bucket after the decision, nanotokens (may be negative: debt)
 * @param dailyUsed          jobs counted today, this one included when admitted
 * @param leases             concurrency leases held after the decision
 * @param borrowedNano       part of the cost borrowed from the farm's pool, nanotokens
 * @param nowMicros          the decision's time (Redis {@code TIME} or the local clock), µs since the epoch
 * @param limits             the limits the decision used
 * @param fallback           decided on this node's local budget because Redis was unreachable
 */
public record Decision(boolean allowed, Set<Policy> violated, Set<Policy> shadowViolated, long costNano,
                       long retryAfterMicros, long remainingNano, long dailyUsed, long leases, long borrowedNano,
                       long nowMicros, Limits limits, boolean fallback) {

    /** Whether the cost can never fit (no {@code Retry-After}: waiting will not help). */
    public boolean neverSatisfiable() { return violated.contains(Policy.COST_EXCEEDS_BURST); }

    /** {@code Retry-After} in whole seconds, rounded up (never down: a client retrying then is admitted). */
    public long retryAfterSeconds() { return Math.max(1, ceilDiv(retryAfterMicros, 1_000_000)); }

    public Decision asFallback() {
        return new Decision(allowed, violated, shadowViolated, costNano, retryAfterMicros, remainingNano, dailyUsed,
                leases, borrowedNano, nowMicros, limits, true);
    }

    static long ceilDiv(long a, long b) { return -Math.floorDiv(-a, b); }
}
