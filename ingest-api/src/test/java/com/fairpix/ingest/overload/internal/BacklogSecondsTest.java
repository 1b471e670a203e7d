package com.fairpix.ingest.overload.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BacklogSecondsTest {
    @Test
    void measuredSecondsPerJobAreCostPerJobOverThePoolsCapacity() {
        // Jobs of 3 cost units each, a pool that completes 150 cost units/s: 0.02 s a job, so 600 queued are 12 s.
        assertThat(BacklogMonitor.secondsPerJob(3, 150, 1)).isEqualTo(0.02);
    }

    @Test
    void withoutAMeasurementTheLastOneStays() {
        // No job accepted lately (NaN), no fresh worker figure (0), a broken one: the previous value.
        assertThat(BacklogMonitor.secondsPerJob(Double.NaN, 150, 0.02)).isEqualTo(0.02);
        assertThat(BacklogMonitor.secondsPerJob(3, 0, 0.02)).isEqualTo(0.02);
        assertThat(BacklogMonitor.secondsPerJob(3, Double.POSITIVE_INFINITY, 0.02)).isEqualTo(0.02);
        assertThat(BacklogMonitor.UNMEASURED_JOB_SECONDS).as("before any measurement").isEqualTo(1.0);
    }
}
