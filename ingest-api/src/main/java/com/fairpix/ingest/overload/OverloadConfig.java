package com.fairpix.ingest.overload;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import java.time.Duration;

/**
 * Ingest's overload settings (ramp, backlog shedding, node identity); keys and docs in
 * {@link Setting} ({@code overload.*}). Validated when built: a value out of range is refused
 * naming its setting, and every {@link FairpixConfig} load runs the same check ({@link Check}).
 *
 * @param rampStart      admission level right after recovery, fraction of normal (0, 1]
 * @param rampFactor     multiplier per ramp step (&gt; 1)
 * @param rampStep       time between ramp steps
 * @param rampCapacity   normal admission capacity the ramp scales, tokens/s, pinned; 0 = the farm's capacity as
 *                       admission knows it (the guard's supplier), and with none known scale by request share
 * @param jobSeconds     average work-seconds of one queued job
 * @param softSeconds    backlog bound above which borrowed traffic is shed, work-seconds; 0 = off
 * @param hardSeconds    backlog bound above which all but the reserved share is shed, work-seconds; 0 = off
 * @param reservedShare  share of within-guarantee requests admitted above the hard bound
 * @param backlogRead    interval between consumer-lag readings
 * @param produceTimeout longest wait for Kafka's acknowledgement
 * @param breakerOpen    how long a breaker stays open (the Retry-After of a breaker 503)
 * @param nodeId         this node's name in the farm view
 */
public record OverloadConfig(double rampStart, double rampFactor, Duration rampStep, double rampCapacity, double jobSeconds,
                             double softSeconds, double hardSeconds, double reservedShare, Duration backlogRead,
                             Duration produceTimeout, Duration breakerOpen, String nodeId) {

    /** @throws IllegalArgumentException naming the setting whose value is out of range */
    public OverloadConfig {
        if (!(rampStart > 0 && rampStart <= 1)) throw new IllegalArgumentException(Setting.RAMP_START.env() + " must be in (0, 1], got " + rampStart);
        if (!(rampFactor > 1)) throw new IllegalArgumentException(Setting.RAMP_FACTOR.env() + " must be > 1");
        atLeastOneMilli(Setting.RAMP_STEP_MS, rampStep);
        atLeastOneMilli(Setting.BACKLOG_READ_MS, backlogRead);
        atLeastOneMilli(Setting.KAFKA_PRODUCE_TIMEOUT_MS, produceTimeout);
        notNegative(Setting.RAMP_CAPACITY, rampCapacity);
        notNegative(Setting.BACKLOG_JOB_SECONDS, jobSeconds);
        notNegative(Setting.BACKLOG_SOFT_SECONDS, softSeconds);
        notNegative(Setting.BACKLOG_HARD_SECONDS, hardSeconds);
        if (!(reservedShare >= 0 && reservedShare <= 1)) throw new IllegalArgumentException(Setting.BACKLOG_RESERVED_SHARE.env() + " must be in [0, 1], got " + reservedShare);
    }

    private static void atLeastOneMilli(Setting s, Duration d) {
        if (d.toMillis() < 1) throw new IllegalArgumentException(s.env() + " must be >= 1");
    }

    private static void notNegative(Setting s, double v) {
        if (!(v >= 0)) throw new IllegalArgumentException(s.env() + " must be >= 0");
    }

    /**
     * @param defaultNodeId used when {@code overload.node-id} is empty (host:port)
     * @throws IllegalArgumentException naming the setting whose value is out of range
     */
    public static OverloadConfig from(FairpixConfig c, String defaultNodeId) {
        String node = c.get(Setting.NODE_ID).isBlank() ? defaultNodeId : c.get(Setting.NODE_ID).trim();
        return new OverloadConfig(c.decimal(Setting.RAMP_START), c.decimal(Setting.RAMP_FACTOR), Duration.ofMillis(c.longValue(Setting.RAMP_STEP_MS)),
                c.decimal(Setting.RAMP_CAPACITY), c.decimal(Setting.BACKLOG_JOB_SECONDS), c.decimal(Setting.BACKLOG_SOFT_SECONDS), c.decimal(Setting.BACKLOG_HARD_SECONDS),
                c.decimal(Setting.BACKLOG_RESERVED_SHARE), Duration.ofMillis(c.longValue(Setting.BACKLOG_READ_MS)),
                Duration.ofMillis(c.longValue(Setting.KAFKA_PRODUCE_TIMEOUT_MS)), Duration.ofMillis(c.longValue(Setting.BREAKER_OPEN_MS)), node);
    }

    /** Refuses {@code overload.*} values out of range when the config loads. */
    public static final class Check implements com.fairpix.core.config.SettingsCheck {
        @Override
        public void check(FairpixConfig config) {
            from(config, "check");
        }
    }

    /** Whether backlog shedding is on (a bound is set). */
    public boolean shedding() { return softSeconds > 0 || hardSeconds > 0; }

    /**
     * The shedding level for a backlog: 0 none, 1 borrowed traffic shed (soft bound passed),
     * 2 everything but the reserved share shed (hard bound passed).
     */
    public int sheddingLevel(double backlogSeconds) {
        if (hardSeconds > 0 && backlogSeconds >= hardSeconds) return 2;
        if (softSeconds > 0 && backlogSeconds >= softSeconds) return 1;
        return 0;
    }

    /**
     * The ramp's admission level {@code elapsed} after recovery began: {@code start × factor^steps},
     * capped at 1, where steps = whole {@code rampStep}s elapsed (10 %, 12 %, 14.4 %, … by default).
     */
    public double rampLevel(Duration elapsed) {
        if (elapsed.isNegative()) return rampStart;
        long steps = elapsed.toMillis() / rampStep.toMillis();
        double level = rampStart * Math.pow(rampFactor, Math.min(steps, 10_000));
        return Math.min(1.0, level);
    }

    /** How long a full ramp takes: the first step at which the level reaches 1. */
    public Duration rampLength() {
        long steps = (long) Math.ceil(Math.log(1 / rampStart) / Math.log(rampFactor) - 1e-9);
        return rampStep.multipliedBy(Math.max(0, steps));
    }
}
