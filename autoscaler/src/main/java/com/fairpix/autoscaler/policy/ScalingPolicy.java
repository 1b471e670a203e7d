package com.fairpix.autoscaler.policy;

import com.fairpix.autoscaler.policy.internal.StabilizedPolicy;
import com.fairpix.autoscaler.signal.PoolSignals;
import java.time.Instant;
import java.util.List;

/**
 * Decides a pool's replicas. A pure function: the same recorded history, current size and time
 * always give the same decision; the caller ({@link PoolScaler}) keeps the history.
 */
public interface ScalingPolicy {

    /** A past recommendation, kept for the stabilization window. */
    record Recommendation(Instant at, int replicas) {}

    /**
     * Everything a decision may depend on.
     *
     * @param readings        good readings, oldest first, the newest being {@code latest} when it is good
     * @param latest          this period's reading (possibly failed)
     * @param recommendations earlier recommendations, oldest first
     * @param lastScaleOut    when the pool last stepped out, or null
     * @param lastAction      when the pool last changed size for any reason, or null
     */
    record Input(PolicyConfig config, List<PoolSignals> readings, PoolSignals latest, List<Recommendation> recommendations,
                 Instant lastScaleOut, Instant lastAction, int current, Instant now) {}

    Decision decide(Input input);

    /**
     * fairpix's policy: threshold triggers plus a proportional target, scale-out in capped steps,
     * scale-in through a stabilization window and a cooldown (docs/autoscaler.md).
     */
    static ScalingPolicy stabilized() {
        return new StabilizedPolicy();
    }
}
