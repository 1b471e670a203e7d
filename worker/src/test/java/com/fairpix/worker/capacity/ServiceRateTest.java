package com.fairpix.worker.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ServiceRateTest {
    @Test
    void noFigureBeforeTheWarmUp() {
        ServiceRate r = new ServiceRate();
        for (int i = 0; i < ServiceRate.WARM_UP - 1; i++) r.observe(2, 0.1);
        assertThat(r.perThread()).isNaN();
        r.observe(2, 0.1);
        assertThat(r.perThread()).isCloseTo(20, within(1e-9));
    }

    @Test
    void bigJobsCountWithTheirTimeNotAsOneSampleEach() {
        // Alternating a 1-unit job of 0.1 s and a 9-unit job of 0.9 s: 10 units a second, whatever the
        // order (a mean of per-job rates would say the same here; the next test tells them apart).
        ServiceRate r = new ServiceRate();
        for (int i = 0; i < 200; i++) {
            r.observe(1, 0.1);
            r.observe(9, 0.9);
        }
        assertThat(r.perThread()).isCloseTo(10, within(1e-6));
    }

    @Test
    void aMixIsWeightedByTimeAsAThreadLivesIt() {
        // Half the jobs run at 1 unit/s (1 unit, 1 s), half at 100 units/s (1 unit, 0.01 s): a busy
        // thread completes 2 units per 1.01 s, about 1.98 units/s, not the mean of the rates (50.5).
        ServiceRate r = new ServiceRate();
        for (int i = 0; i < 500; i++) {
            r.observe(1, 1);
            r.observe(1, 0.01);
        }
        assertThat(r.perThread()).isCloseTo(2 / 1.01, within(0.05));
    }

    @Test
    void followsAChangeOfMixWithinAFewHundredJobs() {
        ServiceRate r = new ServiceRate();
        for (int i = 0; i < 500; i++) r.observe(1, 0.1); // 10/s
        for (int i = 0; i < 300; i++) r.observe(1, 0.5); // then 2/s
        assertThat(r.perThread()).isCloseTo(2, within(0.05));
    }

    @Test
    void unusableObservationsAreIgnored() {
        ServiceRate r = new ServiceRate();
        for (int i = 0; i < ServiceRate.WARM_UP; i++) r.observe(1, 0.5);
        r.observe(0, 1);
        r.observe(Double.NaN, 1);
        r.observe(1, -1);
        r.observe(1, Double.POSITIVE_INFINITY);
        assertThat(r.perThread()).isCloseTo(2, within(1e-9));
    }
}
