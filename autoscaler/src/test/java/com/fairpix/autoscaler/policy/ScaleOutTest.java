package com.fairpix.autoscaler.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Scale-out on recorded traces: step load, spike, slow ramp, the triggers, and no dead band that leaves the last replica undone. */
class ScaleOutTest {
    static final PolicyConfig CPU = PolicyConfig.defaults("cpu"); // min 1, max 8, target 100, +2 per 15 s
    static final Duration PERIOD = Duration.ofSeconds(5);

    @Test
    void stepLoadClimbsInCappedStepsToTheTargetAndStays() {
        // lag jumps from 0 to 1,000 messages on all 8 partitions and stays there
        Trace t = new Trace(CPU, 1, PERIOD).run(40, i -> at -> Trace.reading(at, 0, 1000, 8, 8));
        assertThat(t.sizes().subList(0, 10)).containsExactly(3, 3, 3, 5, 5, 5, 7, 7, 7, 8);
        assertThat(t.sizes()).allMatch(n -> n <= 8);
        for (int i = 1; i < t.sizes().size(); i++) assertThat(t.sizes().get(i)).isGreaterThanOrEqualTo(t.sizes().get(i - 1));
        assertThat(t.decisions.get(1).reason()).isEqualTo(Reason.HOLD_STEP_PERIOD);
    }

    @Test
    void backlogIsLagTimesTheMeasuredCostPerJobAndTheSettingOnlyWithoutOne() {
        // 150 messages of lag on 8 partitions; ingest measured 4 cost units per recent job
        Trace measured = new Trace(CPU, 1, PERIOD).run(1, i -> at -> Trace.reading(at, 0, 150, 8, 8).withCostPerJob(4));
        assertThat(measured.decisions.getFirst().inputs().backlog()).isEqualTo(600.0);
        assertThat(measured.decisions.getFirst().inputs().proportional()).isEqualTo(6);
        // no job accepted lately (NaN): autoscaler.cost-per-job (1)
        Trace fallback = new Trace(CPU, 1, PERIOD).run(1, i -> at -> Trace.reading(at, 0, 150, 8, 8));
        assertThat(fallback.decisions.getFirst().inputs().backlog()).isEqualTo(150.0);
        assertThat(fallback.decisions.getFirst().inputs().proportional()).isEqualTo(2);
    }

    @Test
    void shortSpikeStepsOutOnceAndComesBackOnlyAfterTheWindow() {
        // 10 s of lag 1,000, then empty for 10 minutes
        Trace t = new Trace(CPU, 1, PERIOD).run(120, i -> at -> Trace.reading(at, 0, i < 2 ? 1000 : 0, i < 2 ? 8 : 0, 8));
        assertThat(t.sizes().stream().mapToInt(Integer::intValue).max().getAsInt()).isEqualTo(3);
        assertThat(t.scaleInTimes()).hasSize(1);
        // the recommendation of 8 at t=0 stays in the 300 s window
        assertThat(t.scaleInTimes().getFirst()).isGreaterThan(300);
        assertThat(t.replicas).isEqualTo(1);
    }

    @Test
    void slowRampIsTrackedWithoutEverStepingBack() {
        // lag grows by 20 messages/s over 8 partitions for 5 minutes: replicas follow ceil(lag/100)
        Trace t = new Trace(CPU, 1, PERIOD).run(60, i -> at -> Trace.reading(at, 20, 100L * i, Math.min(8, Math.max(1, i)), 8));
        for (int i = 1; i < t.sizes().size(); i++) assertThat(t.sizes().get(i)).isGreaterThanOrEqualTo(t.sizes().get(i - 1));
        assertThat(t.replicas).isEqualTo(8);
        for (Decision d : t.decisions) {
            // never more than one step period behind the proportional target
            assertThat(d.desired()).isGreaterThanOrEqualTo(Math.min(d.inputs().proportional(), 8) - 2 * 2);
        }
    }

    @Test
    void sustainedQpsTriggersAStepEvenBelowTheProportionalTarget() {
        // 100 jobs/s, small backlog (1 replica's worth) on 4 partitions: only the trigger can scale out
        Trace t = new Trace(CPU, 1, PERIOD).run(14, i -> at -> Trace.reading(at, 100, 40, 4, 8));
        assertThat(t.decisions.subList(0, 12)).allMatch(d -> d.desired() == 1 && !d.inputs().qpsTrigger());
        Decision after60s = t.decisions.get(12);
        assertThat(after60s.inputs().qpsTrigger()).isTrue();
        assertThat(after60s.reason()).isEqualTo(Reason.SCALE_OUT);
        assertThat(after60s.desired()).isEqualTo(3);
    }

    @Test
    void qpsBelowTheThresholdForOnePeriodResetsTheSustainClock() {
        Trace t = new Trace(CPU, 1, PERIOD).run(14, i -> at -> Trace.reading(at, i == 8 ? 70 : 100, 40, 4, 8));
        assertThat(t.decisions).allMatch(d -> d.desired() == 1);
    }

    @Test
    void growingBacklogTriggersAStepWhenItHoldsFor30Seconds() {
        // proportional target made huge so that only the growth trigger acts: +100 messages/s from 300
        PolicyConfig config = CPU.withTarget(1_000_000);
        Trace t = new Trace(config, 1, PERIOD).run(9, i -> at -> Trace.reading(at, 0, 300 + 500L * i, 8, 8));
        int first = -1;
        for (int i = 0; i < t.decisions.size(); i++) if (t.decisions.get(i).inputs().growthTrigger()) { first = i; break; }
        assertThat(first).as("first period with the growth trigger").isEqualTo(6); // 30 s of readings after the first
        assertThat(t.decisions.get(first).reason()).isEqualTo(Reason.SCALE_OUT);
        assertThat(t.decisions.get(first).desired()).isEqualTo(3);
    }

    @Test
    void reachesThePartitionCountWithinTwoPeriodsWithNoDeadBand() {
        // 8 partitions, lag target 100 per replica, 7 workers, lag 10,000 spread over all partitions
        PolicyConfig config = CPU.withBounds(1, 20);
        Trace t = new Trace(config, 7, PERIOD).run(2, i -> at -> Trace.reading(at, 0, 10_000, 8, 8));
        assertThat(t.firstReaching(8)).isBetween(0, 1);
        assertThat(t.replicas).isEqualTo(8); // and not one more than the partitions
    }

    @Test
    void noToleranceBandLeavesTheLastReplicaUndone() {
        // 710 messages with 7 replicas of target 100: 8 wanted. HPA's default 10% tolerance would keep 7.
        Trace t = new Trace(CPU, 7, PERIOD).run(1, i -> at -> Trace.reading(at, 0, 710, 8, 8));
        assertThat(t.replicas).isEqualTo(8);
    }

    @Test
    void neverMoreReplicasThanPartitionsWithLag() {
        // a huge backlog on 3 partitions: only 3 consumers can work on it
        Trace t = new Trace(CPU, 1, PERIOD).run(20, i -> at -> Trace.reading(at, 500, 50_000, 3, 12));
        assertThat(t.sizes()).allMatch(n -> n <= 3);
        assertThat(t.replicas).isEqualTo(3);
    }
}
