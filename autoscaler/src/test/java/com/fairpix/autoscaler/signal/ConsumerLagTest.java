package com.fairpix.autoscaler.signal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.autoscaler.policy.Decision;
import com.fairpix.autoscaler.policy.PolicyConfig;
import com.fairpix.autoscaler.policy.PoolScaler;
import com.fairpix.autoscaler.policy.internal.StabilizedPolicy;
import com.fairpix.core.kafka.ConsumerLag;
import com.fairpix.core.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Lag arithmetic (log-end minus committed; no commit counts from the log start) and a log whose start retention moved to its end, never committed, reads 0, not the whole log. */
class ConsumerLagTest {

    @Test
    void lagIsLogEndMinusCommitted() {
        assertThat(ConsumerLag.of(0, 1500, 1200L)).isEqualTo(300);
        assertThat(ConsumerLag.of(0, 1500, 1500L)).isZero();
    }

    @Test
    void noCommitCountsFromTheLogStartNotFromZero() {
        assertThat(ConsumerLag.of(400, 1500, null)).isEqualTo(1100);
    }

    @Test
    void aCommitOvertakenByRetentionCountsFromTheLogStart() {
        assertThat(ConsumerLag.of(1000, 1500, 200L)).isEqualTo(500);
    }

    @Test
    void retentionAdvancedTheLogStartToTheLogEndAndTheGroupNeverCommitted() {
        // log start 1,000 = log end, new consumer group, no commits: lag 0, no scale-out
        Map<Integer, Long> lag = new HashMap<>();
        for (int p = 0; p < 8; p++) lag.put(p, ConsumerLag.of(1000, 1000, null));
        assertThat(lag.values()).allMatch(l -> l == 0);

        ManualClock clock = new ManualClock(Instant.parse("2026-11-30T00:00:00Z"));
        PoolScaler scaler = new PoolScaler("cpu", new StabilizedPolicy(), PolicyConfig.defaults("cpu"), clock);
        int replicas = 1;
        for (int i = 0; i < 120; i++) {
            Decision d = scaler.observe(PoolSignals.of("cpu", clock.instant(), 0, lag, 8, Map.of()), replicas);
            scaler.acted(d);
            replicas = d.desired();
            assertThat(d.inputs().lag()).isZero();
            assertThat(replicas).isEqualTo(1);
            clock.advance(Duration.ofSeconds(5));
        }
    }
}
