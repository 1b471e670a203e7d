package com.fairpix.autoscaler.policy;

import com.fairpix.autoscaler.policy.internal.StabilizedPolicy;
import com.fairpix.autoscaler.signal.PoolSignals;
import com.fairpix.core.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Replays a recorded signal trace through the policy, one reading per evaluation period, with an
 * ideal actuator (actual replicas = last desired). Time moves only by {@link ManualClock}.
 */
final class Trace {
    static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");

    final ManualClock clock = new ManualClock(T0);
    final PoolScaler scaler;
    final Duration period;
    int replicas;
    final List<Decision> decisions = new ArrayList<>();

    Trace(PolicyConfig config, int startReplicas, Duration period) {
        this.scaler = new PoolScaler("cpu", new StabilizedPolicy(), config, clock);
        this.replicas = startReplicas;
        this.period = period;
    }

    /** A good reading: {@code lag} messages spread evenly over {@code partitionsWithLag} of {@code partitions}. */
    static PoolSignals reading(Instant at, double qps, long lag, int partitionsWithLag, int partitions) {
        Map<Integer, Long> byPartition = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            long share = p < partitionsWithLag ? lag / partitionsWithLag + (p < lag % partitionsWithLag ? 1 : 0) : 0;
            byPartition.put(p, share);
        }
        return PoolSignals.of("cpu", at, qps, byPartition, partitions, Map.of());
    }

    /** Feeds one reading made by {@code at -> reading} and applies the decision; then advances a period. */
    Decision step(java.util.function.Function<Instant, PoolSignals> reading) {
        Decision d = scaler.observe(reading.apply(clock.instant()), replicas);
        scaler.acted(d);
        replicas = d.desired();
        decisions.add(d);
        clock.advance(period);
        return d;
    }

    /** Runs {@code steps} periods; {@code load.apply(i)} gives the reading of period i. */
    Trace run(int steps, IntFunction<java.util.function.Function<Instant, PoolSignals>> load) {
        for (int i = 0; i < steps; i++) step(load.apply(i));
        return this;
    }

    /** Seconds since T0 of each decision that scaled in. */
    List<Long> scaleInTimes() {
        return decisions.stream().filter(d -> d.reason() == Reason.SCALE_IN).map(d -> Duration.between(T0, d.at()).toSeconds()).toList();
    }

    List<Integer> sizes() {
        return decisions.stream().map(Decision::desired).toList();
    }

    /** The first period index at which replicas reached {@code n}, or -1. */
    int firstReaching(int n) {
        for (int i = 0; i < decisions.size(); i++) if (decisions.get(i).desired() >= n) return i;
        return -1;
    }
}
