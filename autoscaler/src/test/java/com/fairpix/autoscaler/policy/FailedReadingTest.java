package com.fairpix.autoscaler.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.autoscaler.signal.PoolSignals;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A failed or partial reading is not zero: the autoscaler holds. */
class FailedReadingTest {
    static final PolicyConfig CPU = PolicyConfig.defaults("cpu").withScaleIn(0, 0); // scale-in would be instant
    static final Duration PERIOD = Duration.ofSeconds(5);

    @Test
    void brokerUnreachableForThreePollsMidBacklogHoldsTheCurrentSize() {
        Trace t = new Trace(CPU, 1, PERIOD).run(12, i -> at -> Trace.reading(at, 10, 500, 8, 8));
        assertThat(t.replicas).isEqualTo(5);
        for (int i = 0; i < 3; i++) {
            Decision d = t.step(at -> PoolSignals.failed("cpu", at, "TimeoutException: broker unreachable"));
            assertThat(d.reason()).isEqualTo(Reason.HOLD_FAILED_READING);
            assertThat(d.desired()).isEqualTo(5);
            assertThat(d.recommendation()).isNull();
        }
        // the broker is back with the same backlog: still 5, no dip
        assertThat(t.step(at -> Trace.reading(at, 10, 500, 8, 8)).desired()).isEqualTo(5);
    }

    @Test
    void failedReadingsAreNotRecordedAsZeroLag() {
        Trace t = new Trace(CPU, 1, PERIOD).run(12, i -> at -> Trace.reading(at, 10, 500, 8, 8));
        for (int i = 0; i < 3; i++) t.step(at -> PoolSignals.failed("cpu", at, "down"));
        assertThat(t.scaler.readings()).allMatch(PoolSignals::ok);
        assertThat(t.scaler.readings()).allMatch(r -> r.lag() == 500);
    }

    @Test
    void failedReadingsNeitherBreakNorProveASustainedTrigger() {
        // 100 jobs/s for 70 s with a failed reading in the middle: the trigger still fires
        Trace t = new Trace(PolicyConfig.defaults("cpu"), 1, PERIOD);
        for (int i = 0; i < 14; i++) {
            if (i == 6) t.step(at -> PoolSignals.failed("cpu", at, "down"));
            else t.step(at -> Trace.reading(at, 100, 40, 4, 8));
        }
        assertThat(t.decisions.getLast().inputs().qpsTrigger()).isTrue();
    }
}
