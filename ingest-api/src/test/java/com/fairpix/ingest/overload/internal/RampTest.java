package com.fairpix.ingest.overload.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.ingest.overload.OverloadConfig;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The ramp's arithmetic and its node-local bucket, on a hand-moved clock. */
class RampTest {
    private static OverloadConfig ramp(double start, double factor, long stepMs) {
        return new OverloadConfig(start, factor, Duration.ofMillis(stepMs), 0, 0, 60, 300, 0.1, Duration.ofSeconds(1),
                Duration.ofSeconds(2), Duration.ofSeconds(5), "n1");
    }

    @Test
    void theLevelGrowsByTheFactorEveryStepFromTheStartToOne() {
        OverloadConfig c = ramp(0.1, 1.2, 30_000);
        assertThat(c.rampLevel(Duration.ZERO)).isEqualTo(0.1);
        assertThat(c.rampLevel(Duration.ofMillis(29_999))).isEqualTo(0.1);
        assertThat(c.rampLevel(Duration.ofSeconds(30))).isCloseTo(0.12, org.assertj.core.api.Assertions.within(1e-12));
        assertThat(c.rampLevel(Duration.ofSeconds(60))).isCloseTo(0.144, org.assertj.core.api.Assertions.within(1e-12));
        assertThat(c.rampLevel(Duration.ofMinutes(10))).isEqualTo(1.0);
        assertThat(c.rampLevel(Duration.ofSeconds(-5))).as("a clock step back").isEqualTo(0.1);
        // 0.1 × 1.2^13 = 1.07: the 13th step, 6.5 minutes, reaches 100 %.
        assertThat(c.rampLength()).isEqualTo(Duration.ofSeconds(13 * 30));
        assertThat(c.rampLevel(c.rampLength().minusMillis(1))).isLessThan(1.0);
        assertThat(c.rampLevel(c.rampLength())).isEqualTo(1.0);
    }

    @Test
    void theBucketAdmitsTheRateInTokensPerSecondHoldingAtMostOneSecond() {
        AtomicLong nanos = new AtomicLong();
        RampBucket b = new RampBucket(nanos::get);
        // 10 tokens/s, jobs of 2.5 tokens: after 1 s idle, 4 fit (one second's worth), then one per 0.25 s.
        nanos.addAndGet(5_000_000_000L);
        int ok = 0;
        for (int i = 0; i < 10; i++) if (b.tryTake(10, 2.5)) ok++;
        assertThat(ok).isEqualTo(4);
        nanos.addAndGet(250_000_000L);
        assertThat(b.tryTake(10, 2.5)).isTrue();
        assertThat(b.tryTake(10, 2.5)).isFalse();
        // A job bigger than one second of the rate still passes once the bucket holds its cost.
        nanos.addAndGet(1_000_000_000L);
        assertThat(b.tryTake(10, 15)).as("10 tokens after 1 s").isFalse();
        nanos.addAndGet(500_000_000L);
        assertThat(b.tryTake(10, 15)).as("the bucket holds max(rate, cost): 15 after 1.5 s").isTrue();
    }
}
