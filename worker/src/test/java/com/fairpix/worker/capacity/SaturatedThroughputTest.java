package com.fairpix.worker.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class SaturatedThroughputTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void countsOnlyIntervalsSaturatedAtBothEnds() {
        SaturatedThroughput t = new SaturatedThroughput(0);
        long now = 0;
        t.sample(true, now);
        // 20 saturated seconds at 50 cost units/s ...
        for (int i = 0; i < 20; i++) {
            t.completed(50);
            t.sample(true, now += SECOND);
        }
        assertThat(t.rate()).isCloseTo(50, within(1e-9));
        // ... then 60 s of light load (5/s, the queue ran dry): its load, not its capacity, so not counted.
        for (int i = 0; i < 60; i++) {
            t.completed(5);
            t.sample(false, now += SECOND);
        }
        assertThat(t.rate()).isCloseTo(50, within(1e-9));
        // The first interval after a dry one is not counted either (it did not start saturated).
        t.completed(1);
        t.sample(true, now += SECOND);
        assertThat(t.rate()).isCloseTo(50, within(1e-9));
    }

    @Test
    void noFigureBeforeTheWarmUpAndItFollowsAChangeWithinMinutes() {
        SaturatedThroughput t = new SaturatedThroughput(0);
        long now = 0;
        t.sample(true, now);
        for (int i = 0; i < SaturatedThroughput.WARM_UP_SECONDS - 1; i++) {
            t.completed(100);
            t.sample(true, now += SECOND);
        }
        assertThat(t.rate()).isNaN();
        for (int i = 0; i < 100; i++) {
            t.completed(100);
            t.sample(true, now += SECOND);
        }
        assertThat(t.rate()).isCloseTo(100, within(1e-9));
        // The replica slows to 40/s (the machine got busier): 5 time constants later the figure is there.
        for (int i = 0; i < 150; i++) {
            t.completed(40);
            t.sample(true, now += SECOND);
        }
        assertThat(t.rate()).isCloseTo(40, within(1.0));
        t.completed(Double.NaN);
        t.completed(-5);
        t.sample(true, now += SECOND);
        assertThat(t.rate()).as("bad costs are ignored, an empty saturated second pulls it down a little").isBetween(38.0, 41.0);
    }

    @Test
    void aLowFigureIsRaisedByWhatTheReplicaCompletesUnsaturated() {
        SaturatedThroughput t = new SaturatedThroughput(0);
        long now = 0;
        t.sample(true, now);
        // Saturated at 50/s while the JVM warmed up ...
        for (int i = 0; i < 30; i++) {
            t.completed(50);
            t.sample(true, now += SECOND);
        }
        assertThat(t.capacity(Double.NaN)).isCloseTo(50, within(1e-9));
        // ... then admission lets in 60/s (1.2 × 50) and the replica, really faster, does all of it unsaturated.
        for (int i = 0; i < 150; i++) {
            t.completed(60);
            t.sample(false, now += SECOND);
        }
        assertThat(t.rate()).as("the saturated rate alone stays low").isCloseTo(50, within(1e-9));
        assertThat(t.capacity(Double.NaN)).as("what it did counts: the figure rises with the load").isCloseTo(60, within(0.5));
        // Before any saturation: the threads' upper bound, unless it completes more than that.
        SaturatedThroughput fresh = new SaturatedThroughput(0);
        assertThat(fresh.capacity(Double.NaN)).isNaN();
        assertThat(fresh.capacity(80)).isEqualTo(80.0);
    }
}
