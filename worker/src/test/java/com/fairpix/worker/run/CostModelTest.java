package com.fairpix.worker.run;

import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class CostModelTest {
    /** Feeds the warm-up: jobs of cost 10 taking 1 s (0.1 s per unit). */
    static CostModel warmedUp() {
        CostModel m = new CostModel();
        for (int i = 0; i < CostModel.WARM_UP; i++) assertThat(m.correction(10, 1.0)).as("no correction while warming up").isZero();
        return m;
    }

    @Test
    void aJobAsFastAsTheAverageIsNotCorrected() {
        assertThat(warmedUp().correction(10, 1.0)).isCloseTo(0, Offset.offset(1e-9));
    }

    @Test
    void aJobThreeTimesSlowerThanItsEstimateIsChargedTheDifference() {
        assertThat(warmedUp().correction(10, 3.0)).isCloseTo(20, Offset.offset(1e-9));
    }

    @Test
    void aColdStartOrSkippedJobsInTheWarmUpDoNotSetTheRate() {
        CostModel m = new CostModel();
        m.correction(10, 30.0); // the JVM's first job: JIT, native library, connections
        m.correction(10, 0.0001); // a job skipped at once
        m.correction(10, 0.0001);
        for (int i = 3; i < CostModel.WARM_UP; i++) m.correction(10, 1.0);

        assertThat(m.correction(10, 1.0)).as("the median rate, not the first one").isCloseTo(0, Offset.offset(1e-9));
    }

    @Test
    void oneStalledJobIsChargedAtMostMaxFactorTimesItsEstimate() {
        CostModel m = warmedUp();
        assertThat(m.correction(10, 3_600)).isEqualTo(10 * CostModel.MAX_FACTOR - 10);
        assertThat(m.correction(10, 0.0)).isEqualTo(10 / CostModel.MAX_FACTOR - 10);
        // and the stall moved the average by no more than an 8x job would: a normal job stays near 0
        assertThat(m.correction(10, 1.0)).isBetween(-3.0, 0.5);
    }

    @Test
    void unusableMeasurementsAreIgnored() {
        CostModel m = warmedUp();
        assertThat(m.correction(0, 1.0)).isZero();
        assertThat(m.correction(Double.NaN, 1.0)).isZero();
        assertThat(m.correction(10, -1.0)).isZero();
        assertThat(m.correction(10, Double.POSITIVE_INFINITY)).isZero();
        assertThat(m.correction(10, 1.0)).isCloseTo(0, Offset.offset(1e-9));
    }
}
