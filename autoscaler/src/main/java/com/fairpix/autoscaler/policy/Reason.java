package com.fairpix.autoscaler.policy;

/** Why a decision came out as it did; a label of {@code fairpix_autoscaler_decisions_total}. */
public enum Reason {
    /** Recommendation above the current size: stepped out (capped by the step). */
    SCALE_OUT,
    /** The stabilised recommendation is below the current size, cooldown over: stepped in. */
    SCALE_IN,
    /** Outside min/max (a changed policy, a replica that died): brought back within bounds. */
    BOUNDS,
    /** The recommendation equals the current size. */
    STEADY,
    /** Wants more, but the last step out was less than a step period ago. */
    HOLD_STEP_PERIOD,
    /** Wants fewer, but a higher recommendation is still inside the stabilization window. */
    HOLD_STABILIZING,
    /** Wants fewer, but the last scaling action is within the cooldown. */
    HOLD_COOLDOWN,
    /** The reading failed or was partial: never act on it. */
    HOLD_FAILED_READING,
    /** An operator paused the pool. */
    PAUSED,
    /** An operator set the replicas by hand ({@code fairpix scale set}). */
    MANUAL
}
