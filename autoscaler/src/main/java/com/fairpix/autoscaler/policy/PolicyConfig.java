package com.fairpix.autoscaler.policy;

import com.fairpix.core.config.Constraint;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.pool.Pool;
import java.util.ArrayList;
import java.util.List;

/**
 * The scaling policy of one pool. A whole value: hot reload swaps it, so a half-applied change
 * cannot exist. Durations are in seconds, backlog in cost units, QPS in jobs per second. Each
 * member's bounds are its {@code autoscaler.*} setting's constraint, checked on load for the
 * settings and by {@link #problems()} for a policy from the admin API; the rule across members
 * (max ≥ min replicas) is here, and {@link Check} runs it on every load.
 *
 * @param minReplicas              fewest replicas
 * @param maxReplicas              most replicas (the partitions with lag cap it further)
 * @param targetBacklogPerReplica  cost units one replica carries: proportional target = ceil(backlog / this)
 * @param costPerJob               cost units per queued message (lag is counted in messages)
 * @param qpsThreshold             jobs/s that, sustained for {@code qpsSustainSeconds}, trigger a step out
 * @param backlogThreshold         backlog that, while growing faster than {@code growthThreshold}
 *                                 for {@code growthSustainSeconds}, triggers a step out
 * @param growthThreshold          backlog growth, cost units per second
 * @param scaleOutStep             most replicas added per {@code stepPeriodSeconds}
 * @param stabilizationSeconds     scale-in window: the highest recommendation in it wins
 * @param cooldownSeconds          quiet time after any scaling action before a scale-in
 */
public record PolicyConfig(int minReplicas, int maxReplicas, double targetBacklogPerReplica, double costPerJob,
                           double qpsThreshold, long qpsSustainSeconds, double backlogThreshold, double growthThreshold,
                           long growthSustainSeconds, int scaleOutStep, long stepPeriodSeconds, long stabilizationSeconds,
                           long cooldownSeconds) {

    /** The seeds' defaults: 80 jobs/s for 60 s; backlog 200 growing 50/s for 30 s; +2 CPU / +1 GPU per 15 s; 300 s window. */
    public static PolicyConfig defaults(String pool) {
        return new PolicyConfig(1, 8, 100, 1, 80, 60, 200, 50, 30, Pool.parse(pool) == Pool.GPU ? 1 : 2, 15, 300, 60);
    }

    /**
     * The policy of {@code pool} from the {@code autoscaler.*} settings.
     *
     * @throws IllegalArgumentException naming the settings when the most replicas are fewer than the fewest
     */
    public static PolicyConfig from(FairpixConfig c, String pool) {
        PolicyConfig policy = new PolicyConfig(c.integer(Setting.AUTOSCALER_MIN_REPLICAS), c.integer(Setting.AUTOSCALER_MAX_REPLICAS),
                c.decimal(Setting.AUTOSCALER_TARGET_BACKLOG), c.decimal(Setting.AUTOSCALER_COST_PER_JOB),
                c.decimal(Setting.AUTOSCALER_QPS_THRESHOLD), c.integer(Setting.AUTOSCALER_QPS_SUSTAIN_SECONDS),
                c.decimal(Setting.AUTOSCALER_BACKLOG_THRESHOLD), c.decimal(Setting.AUTOSCALER_GROWTH_THRESHOLD),
                c.integer(Setting.AUTOSCALER_GROWTH_SUSTAIN_SECONDS),
                c.integer(Pool.parse(pool) == Pool.GPU ? Setting.AUTOSCALER_STEP_GPU : Setting.AUTOSCALER_STEP_CPU),
                c.integer(Setting.AUTOSCALER_STEP_PERIOD_SECONDS), c.integer(Setting.AUTOSCALER_STABILIZATION_SECONDS),
                c.integer(Setting.AUTOSCALER_COOLDOWN_SECONDS));
        // Each value passed its setting's constraint when c loaded: what is left is the rule across two.
        if (!policy.boundsOrdered()) {
            throw new IllegalArgumentException(Setting.AUTOSCALER_MAX_REPLICAS.env() + " must be >= " + Setting.AUTOSCALER_MIN_REPLICAS.env());
        }
        return policy;
    }

    /** Refuses {@code autoscaler.*} settings that make no valid policy for a configured pool, when any config loads. */
    public static final class Check implements com.fairpix.core.config.SettingsCheck {
        @Override
        public void check(FairpixConfig config) {
            for (String pool : config.list(Setting.AUTOSCALER_POOLS)) from(config, pool);
        }
    }

    /** What is wrong with this policy (one from the admin API), one line per member; empty when valid. */
    public List<String> problems() {
        List<String> p = new ArrayList<>();
        within(p, "minReplicas", minReplicas, Setting.AUTOSCALER_MIN_REPLICAS);
        if (!boundsOrdered()) p.add("maxReplicas must be >= minReplicas");
        within(p, "targetBacklogPerReplica", targetBacklogPerReplica, Setting.AUTOSCALER_TARGET_BACKLOG);
        within(p, "costPerJob", costPerJob, Setting.AUTOSCALER_COST_PER_JOB);
        within(p, "qpsThreshold", qpsThreshold, Setting.AUTOSCALER_QPS_THRESHOLD);
        within(p, "backlogThreshold", backlogThreshold, Setting.AUTOSCALER_BACKLOG_THRESHOLD);
        within(p, "growthThreshold", growthThreshold, Setting.AUTOSCALER_GROWTH_THRESHOLD);
        within(p, "qpsSustainSeconds", qpsSustainSeconds, Setting.AUTOSCALER_QPS_SUSTAIN_SECONDS);
        within(p, "growthSustainSeconds", growthSustainSeconds, Setting.AUTOSCALER_GROWTH_SUSTAIN_SECONDS);
        within(p, "stepPeriodSeconds", stepPeriodSeconds, Setting.AUTOSCALER_STEP_PERIOD_SECONDS);
        within(p, "stabilizationSeconds", stabilizationSeconds, Setting.AUTOSCALER_STABILIZATION_SECONDS);
        within(p, "cooldownSeconds", cooldownSeconds, Setting.AUTOSCALER_COOLDOWN_SECONDS);
        within(p, "scaleOutStep", scaleOutStep, Setting.AUTOSCALER_STEP_CPU); // step-gpu's bounds are the same
        return p;
    }

    /** The rule across members: the most replicas are at least the fewest. */
    private boolean boundsOrdered() {
        return maxReplicas >= minReplicas;
    }

    /** Adds what is wrong with {@code member}'s value under {@code setting}'s bounds. */
    private static void within(List<String> problems, String member, double value, Setting setting) {
        ((Constraint.Range) setting.constraint()).problem(member, value).ifPresent(problems::add);
    }

    /** @throws IllegalArgumentException naming every problem */
    public PolicyConfig validated() {
        List<String> p = problems();
        if (!p.isEmpty()) throw new IllegalArgumentException("invalid scaling policy: " + String.join("; ", p));
        return this;
    }

    /** A copy with other bounds (tests, {@code fairpix scale policy}). */
    public PolicyConfig withBounds(int min, int max) {
        return new PolicyConfig(min, max, targetBacklogPerReplica, costPerJob, qpsThreshold, qpsSustainSeconds, backlogThreshold,
                growthThreshold, growthSustainSeconds, scaleOutStep, stepPeriodSeconds, stabilizationSeconds, cooldownSeconds);
    }

    /** A copy with other scale-in timing. */
    public PolicyConfig withScaleIn(long stabilization, long cooldown) {
        return new PolicyConfig(minReplicas, maxReplicas, targetBacklogPerReplica, costPerJob, qpsThreshold, qpsSustainSeconds, backlogThreshold,
                growthThreshold, growthSustainSeconds, scaleOutStep, stepPeriodSeconds, stabilization, cooldown);
    }

    /** A copy with another proportional target. */
    public PolicyConfig withTarget(double backlogPerReplica) {
        return new PolicyConfig(minReplicas, maxReplicas, backlogPerReplica, costPerJob, qpsThreshold, qpsSustainSeconds, backlogThreshold,
                growthThreshold, growthSustainSeconds, scaleOutStep, stepPeriodSeconds, stabilizationSeconds, cooldownSeconds);
    }
}
