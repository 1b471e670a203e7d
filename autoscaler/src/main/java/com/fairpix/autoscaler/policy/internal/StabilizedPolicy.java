package com.fairpix.autoscaler.policy.internal;

import com.fairpix.autoscaler.policy.Decision;
import com.fairpix.autoscaler.policy.PolicyConfig;
import com.fairpix.autoscaler.policy.Reason;
import com.fairpix.autoscaler.policy.ScalingPolicy;
import com.fairpix.autoscaler.signal.PoolSignals;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Predicate;

/**
 * fairpix's scaling policy: threshold triggers plus a proportional target, scale-out in capped
 * steps, scale-in only through a stabilization window and a cooldown (after the Kubernetes HPA's
 * algorithm and its {@code behavior} policies; docs/autoscaler.md compares the alternatives).
 *
 * <ol>
 *   <li>A failed reading holds the current size.</li>
 *   <li>Recommendation = max(proportional, trigger): proportional = ceil(backlog / target per
 *       replica); a sustained trigger (QPS, or backlog with growth) asks for current + step.</li>
 *   <li>Bounds: clamp to [min, min(max, partitions with lag)] — extra replicas would have no
 *       partition to consume — but never below min.</li>
 *   <li>Out: at most {@code scaleOutStep} per {@code stepPeriodSeconds}. No tolerance band: a
 *       recommendation one above the current size is acted on.</li>
 *   <li>In: to the highest recommendation of the stabilization window, once the cooldown since the
 *       last action is over.</li>
 * </ol>
 */
public final class StabilizedPolicy implements ScalingPolicy {

    @Override
    public Decision decide(Input in) {
        PolicyConfig c = in.config();
        PoolSignals r = in.latest();
        int current = in.current();
        Instant now = in.now();
        if (!r.ok()) {
            return new Decision(r.pool(), now, current, current, null, Reason.HOLD_FAILED_READING,
                    "reading failed (" + r.error() + "); holding " + current, Decision.Inputs.NONE);
        }
        // Backlog in cost units, the unit admission charges: lag × the measured mean cost of recent
        // jobs, or the configured cost per job when none was accepted lately.
        double costPerJob = costPerJob(r, c);
        double backlog = r.lag() * costPerJob;
        double growth = growth(in.readings(), r, costPerJob);
        int proportional = (int) Math.min(Integer.MAX_VALUE, Math.ceil(backlog / c.targetBacklogPerReplica()));
        boolean qpsTrigger = sustained(in.readings(), now, c.qpsSustainSeconds(), s -> s.qps() >= c.qpsThreshold());
        boolean growthTrigger = sustainedGrowth(in.readings(), now, c);
        int raw = proportional;
        if (qpsTrigger || growthTrigger) raw = Math.max(raw, current + c.scaleOutStep());
        int cap = Math.max(c.minReplicas(), Math.min(c.maxReplicas(), r.partitionsWithLag()));
        int recommendation = Math.max(c.minReplicas(), Math.min(raw, cap));
        int stabilized = recommendation;
        for (Recommendation past : in.recommendations()) {
            if (!past.at().isBefore(now.minusSeconds(c.stabilizationSeconds()))) stabilized = Math.max(stabilized, past.replicas());
        }
        Decision.Inputs inputs = new Decision.Inputs(r.qps(), r.lag(), backlog, growth, r.partitions(), r.partitionsWithLag(),
                proportional, qpsTrigger, growthTrigger, stabilized);

        if (current < c.minReplicas() || current > c.maxReplicas()) {
            int to = Math.max(c.minReplicas(), Math.min(c.maxReplicas(), current));
            return new Decision(r.pool(), now, current, to, recommendation, Reason.BOUNDS,
                    current + " is outside [" + c.minReplicas() + ", " + c.maxReplicas() + "]", inputs);
        }
        if (recommendation > current) {
            if (in.lastScaleOut() != null && now.isBefore(in.lastScaleOut().plusSeconds(c.stepPeriodSeconds()))) {
                return new Decision(r.pool(), now, current, current, recommendation, Reason.HOLD_STEP_PERIOD,
                        "wants " + recommendation + "; next step out at " + in.lastScaleOut().plusSeconds(c.stepPeriodSeconds()), inputs);
            }
            int to = Math.min(recommendation, current + c.scaleOutStep());
            return new Decision(r.pool(), now, current, to, recommendation, Reason.SCALE_OUT,
                    why(proportional, qpsTrigger, growthTrigger, cap, recommendation, to), inputs);
        }
        if (recommendation < current) {
            if (stabilized >= current) {
                return new Decision(r.pool(), now, current, current, recommendation, Reason.HOLD_STABILIZING,
                        "wants " + recommendation + ", but " + stabilized + " was recommended within the last " + c.stabilizationSeconds() + " s", inputs);
            }
            if (in.lastAction() != null && now.isBefore(in.lastAction().plusSeconds(c.cooldownSeconds()))) {
                return new Decision(r.pool(), now, current, current, recommendation, Reason.HOLD_COOLDOWN,
                        "wants " + stabilized + "; cooldown until " + in.lastAction().plusSeconds(c.cooldownSeconds()), inputs);
            }
            return new Decision(r.pool(), now, current, stabilized, recommendation, Reason.SCALE_IN,
                    "highest recommendation in the last " + c.stabilizationSeconds() + " s is " + stabilized, inputs);
        }
        return new Decision(r.pool(), now, current, current, recommendation, Reason.STEADY, "at the recommendation", inputs);
    }

    private static String why(int proportional, boolean qps, boolean growth, int cap, int recommendation, int to) {
        StringBuilder b = new StringBuilder("recommendation ").append(recommendation).append(" (proportional ").append(proportional);
        if (qps) b.append(", QPS trigger");
        if (growth) b.append(", backlog-growth trigger");
        b.append(", cap ").append(cap).append(")");
        if (to < recommendation) b.append("; step-capped to ").append(to);
        return b.toString();
    }

    /** Backlog growth in cost units/s between the previous good reading and {@code latest}; 0 without one. */
    static double growth(List<PoolSignals> readings, PoolSignals latest, double costPerJob) {
        PoolSignals previous = null;
        for (PoolSignals s : readings) {
            if (s.at().isBefore(latest.at())) previous = s;
        }
        if (previous == null) return 0;
        double seconds = Duration.between(previous.at(), latest.at()).toMillis() / 1000.0;
        return seconds <= 0 ? 0 : (latest.lag() - previous.lag()) * costPerJob / seconds;
    }

    /**
     * True when the good readings cover the last {@code seconds} (one is at least that old) and all
     * readings inside that span match. Failed readings leave gaps, never break or prove a trend.
     */
    static boolean sustained(List<PoolSignals> readings, Instant now, long seconds, Predicate<PoolSignals> condition) {
        if (readings.isEmpty()) return false;
        Instant since = now.minusSeconds(seconds);
        if (readings.getFirst().at().isAfter(since)) return false;
        boolean any = false;
        for (PoolSignals s : readings) {
            if (s.at().isBefore(since)) continue;
            if (!condition.test(s)) return false;
            any = true;
        }
        return any;
    }

    /** Cost units per queued message: the reading's measured mean, or {@code autoscaler.cost-per-job} without one. */
    static double costPerJob(PoolSignals s, PolicyConfig c) {
        return s.costPerJob() > 0 ? s.costPerJob() : c.costPerJob();
    }

    private static boolean sustainedGrowth(List<PoolSignals> readings, Instant now, PolicyConfig c) {
        Instant since = now.minusSeconds(c.growthSustainSeconds());
        if (readings.size() < 2 || readings.getFirst().at().isAfter(since)) return false;
        boolean any = false;
        for (int i = 1; i < readings.size(); i++) {
            PoolSignals s = readings.get(i);
            if (s.at().isBefore(since)) continue;
            double backlog = s.lag() * costPerJob(s, c);
            double growth = growth(readings.subList(0, i), s, costPerJob(s, c));
            if (!(backlog > c.backlogThreshold() && growth > c.growthThreshold())) return false;
            any = true;
        }
        return any;
    }
}
