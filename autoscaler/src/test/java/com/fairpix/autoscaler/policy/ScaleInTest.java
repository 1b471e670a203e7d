package com.fairpix.autoscaler.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Scale-in only through the stabilization window and the cooldown; no flapping. */
class ScaleInTest {
    static final PolicyConfig CPU = PolicyConfig.defaults("cpu");
    static final Duration PERIOD = Duration.ofSeconds(5);

    @Test
    void oscillationAroundAThresholdNeverScalesInMoreThanOncePerWindow() {
        // the backlog swings between 2.5 and 0.5 replicas' worth every 20 s for an hour
        Trace fast = new Trace(CPU, 1, PERIOD).run(720, i -> at -> Trace.reading(at, 50, (i / 4) % 2 == 0 ? 250 : 50, 8, 8));
        assertAtMostOneScaleInPerWindow(fast.scaleInTimes(), CPU.stabilizationSeconds());
        assertThat(fast.scaleInTimes()).isEmpty(); // the high phase is always inside the window

        // slow swings: 100 s high, 400 s low; one scale-in per cycle at most
        Trace slow = new Trace(CPU, 1, PERIOD).run(720, i -> at -> Trace.reading(at, 50, (i % 100) < 20 ? 600 : 50, 8, 8));
        assertAtMostOneScaleInPerWindow(slow.scaleInTimes(), CPU.stabilizationSeconds());
        assertThat(slow.scaleInTimes()).isNotEmpty();
    }

    @Test
    void scaleInWaitsForTheWindowThenGoesToItsHighestRecommendation() {
        // 8 replicas' worth for a minute, then 3 replicas' worth for a minute, then nothing
        Trace t = new Trace(CPU, 8, PERIOD).run(200, i -> at -> Trace.reading(at, 0, i < 12 ? 800 : i < 24 ? 300 : 0, 8, 8));
        List<Long> ins = t.scaleInTimes();
        assertThat(ins).isNotEmpty();
        // the first scale-in: once the last recommendation of 8 (t=55 s) has left the 300 s window
        assertThat(ins.getFirst()).isGreaterThan(355);
        Decision first = t.decisions.stream().filter(d -> d.reason() == Reason.SCALE_IN).findFirst().orElseThrow();
        assertThat(first.desired()).isEqualTo(3);
        assertThat(t.replicas).isEqualTo(1);
    }

    @Test
    void cooldownDelaysAScaleInRightAfterAnAction() {
        PolicyConfig config = CPU.withScaleIn(0, 60); // no window: only the cooldown holds
        Trace t = new Trace(config, 1, PERIOD).run(30, i -> at -> Trace.reading(at, 0, i < 1 ? 300 : 0, 8, 8));
        assertThat(t.decisions.get(0).desired()).isEqualTo(3);
        assertThat(t.decisions.subList(1, 12)).allMatch(d -> d.reason() == Reason.HOLD_COOLDOWN && d.desired() == 3);
        assertThat(t.decisions.get(12).reason()).isEqualTo(Reason.SCALE_IN);
        assertThat(t.decisions.get(12).desired()).isEqualTo(1);
    }

    @Test
    void aRestartedScalerCountsTheSizeItFindsAsARecommendation() {
        // found at 6 with nothing to do: it still waits a whole window before scaling in
        Trace t = new Trace(CPU, 6, PERIOD).run(70, i -> at -> Trace.reading(at, 0, 0, 0, 8));
        assertThat(t.scaleInTimes()).hasSize(1);
        assertThat(t.scaleInTimes().getFirst()).isGreaterThan(300);
    }

    @Test
    void outOfBoundsSizesAreCorrectedAtOnce() {
        Trace t = new Trace(CPU.withBounds(2, 4), 9, PERIOD).run(1, i -> at -> Trace.reading(at, 0, 0, 0, 8));
        assertThat(t.decisions.getFirst().reason()).isEqualTo(Reason.BOUNDS);
        assertThat(t.replicas).isEqualTo(4);
    }

    static void assertAtMostOneScaleInPerWindow(List<Long> times, long window) {
        for (int i = 1; i < times.size(); i++) {
            assertThat(times.get(i) - times.get(i - 1)).as("scale-ins at %s", times).isGreaterThanOrEqualTo(window);
        }
    }
}
