package com.fairpix.ingest.overload.internal;

import static com.fairpix.ingest.overload.internal.FakeFarm.ACME;
import static com.fairpix.ingest.overload.internal.FakeFarm.admitted;
import static com.fairpix.ingest.overload.internal.FakeFarm.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.error.RetryLater;
import com.fairpix.core.metrics.MetricNames;
import com.fairpix.core.resilience.Breakers;
import com.fairpix.core.resilience.Dependency;
import com.fairpix.core.time.ManualClock;
import com.fairpix.ingest.overload.OverloadConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The guard's meters, bound from outside it: refusals by reason, ramp and shedding levels, backlog, farm breakers. */
class MeteredOverloadGuardTest {
    final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T12:00:00Z"));
    final FakeFarm.Lag lag = new FakeFarm.Lag();
    final Breakers breakers = FakeFarm.breakers();
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    DefaultOverloadGuard inner(OverloadConfig config) {
        BacklogMonitor backlog = config.shedding() ? new BacklogMonitor(lag, config.jobSeconds(), pool -> Double.NaN, pool -> 0) : null;
        return new DefaultOverloadGuard(config, () -> 0, breakers, new FakeFarm.Channel(), backlog, List.of("cpu", "gpu"), Runnable::run, clock, clock::nanoTime);
    }

    double shed(String reason) {
        return meters.get(MetricNames.OVERLOAD_SHED).tag("reason", reason).counter().count();
    }

    double gauge(String name, String tag, String value) {
        return meters.get(name).tag(tag, value).gauge().value();
    }

    @Test
    void everyRefusalIsCountedByItsReasonEachSeriesThereFromTheStart() {
        DefaultOverloadGuard inner = inner(config(true, 0));
        MeteredOverloadGuard g = new MeteredOverloadGuard(inner, meters, List.of("cpu", "gpu"));
        for (String reason : List.of("breaker-kafka", "breaker-s3", "breaker-redis", "ramp", "shed-borrowed", "shed-reserved")) {
            assertThat(shed(reason)).as(reason).isZero();
        }

        breakers.get(Dependency.S3).transitionToForcedOpenState();
        assertThatThrownBy(g::checkBreakers).isInstanceOf(RetryLater.class);
        assertThat(g.breakerOpen(Dependency.KAFKA).what()).isEqualTo("kafka");
        breakers.get(Dependency.S3).transitionToClosedState();
        assertThatThrownBy(() -> g.checkAdmitted(ACME, "cpu", admitted(5, 1))).isInstanceOf(RetryLater.class);
        lag.messages.put("cpu", 400L);
        inner.readBacklog();
        assertThatThrownBy(() -> g.checkAdmitted(ACME, "cpu", admitted(5, 1))).isInstanceOf(RetryLater.class);

        assertThat(shed("breaker-s3")).isEqualTo(1);
        assertThat(shed("breaker-kafka")).isEqualTo(1);
        assertThat(shed("ramp")).isEqualTo(1);
        assertThat(shed("shed-borrowed")).isEqualTo(1);
        assertThat(shed("shed-reserved")).isZero();
    }

    @Test
    void theGaugesReadTheGuardsView() {
        DefaultOverloadGuard inner = inner(config(true, 0.1));
        new MeteredOverloadGuard(inner, meters, List.of("cpu", "gpu"));
        assertThat(gauge(MetricNames.OVERLOAD_BACKLOG, "pool", "cpu")).as("no reading yet").isZero();
        assertThat(meters.get(MetricNames.OVERLOAD_RAMP_LEVEL).gauge().value()).isEqualTo(1.0);

        breakers.get(Dependency.REDIS).transitionToForcedOpenState();
        lag.messages.put("cpu", 100L);
        inner.readBacklog();

        assertThat(gauge(MetricNames.OVERLOAD_FARM_BREAKER_OPEN, "dependency", "redis")).isEqualTo(1);
        assertThat(gauge(MetricNames.OVERLOAD_FARM_BREAKER_OPEN, "dependency", "s3")).isZero();
        assertThat(meters.get(MetricNames.OVERLOAD_RAMP_LEVEL).gauge().value()).isZero();
        assertThat(gauge(MetricNames.OVERLOAD_SHEDDING_LEVEL, "pool", "cpu")).isEqualTo(1);
        assertThat(gauge(MetricNames.OVERLOAD_SHEDDING_LEVEL, "pool", "gpu")).isZero();
        assertThat(gauge(MetricNames.OVERLOAD_BACKLOG, "pool", "cpu")).isEqualTo(100);
    }

    @Test
    void withSheddingOffThereIsNoBacklogGauge() {
        new MeteredOverloadGuard(inner(config(false, 0.1)), meters, List.of("cpu", "gpu"));
        assertThat(meters.find(MetricNames.OVERLOAD_BACKLOG).gauge()).isNull();
        assertThat(meters.find(MetricNames.OVERLOAD_SHEDDING_LEVEL).gauges()).hasSize(2);
    }
}
