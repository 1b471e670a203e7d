package com.fairpix.autoscaler.policy;

import com.fairpix.autoscaler.signal.PoolSignals;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The memory of one pool's policy: its recent readings, recommendations and scaling actions, fed to
 * the pure {@link ScalingPolicy}. Time comes only from the injected clock, so tests replay traces
 * without sleeping. Not thread-safe: one evaluation loop owns it.
 */
public final class PoolScaler {
    private final String pool;
    private final ScalingPolicy policy;
    private final Clock clock;
    private volatile PolicyConfig config;
    private final Deque<PoolSignals> readings = new ArrayDeque<>();
    private final Deque<ScalingPolicy.Recommendation> recommendations = new ArrayDeque<>();
    private Instant lastScaleOut;
    private Instant lastAction;
    private boolean seeded;

    public PoolScaler(String pool, ScalingPolicy policy, PolicyConfig config, Clock clock) {
        this.pool = pool;
        this.policy = policy;
        this.config = config.validated();
        this.clock = clock;
    }

    public String pool() { return pool; }

    public PolicyConfig config() { return config; }

    /** Hot reload: the next decision uses the new policy; history is kept. */
    public void reconfigure(PolicyConfig next) {
        this.config = next.validated();
    }

    /**
     * Records {@code reading} and decides. Does not record an action: call {@link #acted} once the
     * actuator applied the (possibly overridden) decision.
     */
    public Decision observe(PoolSignals reading, int current) {
        Instant now = clock.instant();
        if (!seeded) {
            // As the Kubernetes HPA does, the size found at start counts as a recommendation, so
            // a restarted autoscaler waits a full window before scaling in.
            recommendations.add(new ScalingPolicy.Recommendation(now, current));
            seeded = true;
        }
        if (reading.ok()) readings.add(reading);
        prune(now);
        Decision d = policy.decide(new ScalingPolicy.Input(config, List.copyOf(readings), reading,
                List.copyOf(recommendations), lastScaleOut, lastAction, current, now));
        if (d.recommendation() != null) recommendations.add(new ScalingPolicy.Recommendation(now, d.recommendation()));
        return d;
    }

    /** The actuator applied {@code d}: remember when the pool last changed, for step periods and cooldown. */
    public void acted(Decision d) {
        if (!d.changes()) return;
        lastAction = d.at();
        if (d.desired() > d.current()) lastScaleOut = d.at();
    }

    private void prune(Instant now) {
        PolicyConfig c = config;
        // Readings: the longest sustain time, plus one reading before it to prove the span is covered.
        Duration keepReadings = Duration.ofSeconds(Math.max(c.qpsSustainSeconds(), c.growthSustainSeconds()) + 60);
        while (readings.size() > 2 && readings.peekFirst().at().isBefore(now.minus(keepReadings))) readings.removeFirst();
        Duration keepRecs = Duration.ofSeconds(c.stabilizationSeconds());
        while (!recommendations.isEmpty() && recommendations.peekFirst().at().isBefore(now.minus(keepRecs))) recommendations.removeFirst();
    }

    /** Readings kept, oldest first (for status and tests). */
    public List<PoolSignals> readings() {
        return new ArrayList<>(readings);
    }
}
