package com.fairpix.ingest.overload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BacklogSecondsTest {
    @Test
    void measuredBacklogIsLagTimesCostPerJobOverCapacity() {
        // 600 queued jobs of 3 cost units each, a pool that completes 150 cost units/s: 12 s of work.
        assertThat(BacklogMonitor.seconds(600, 3, 150)).isEqualTo(12.0);
    }

    @Test
    void withoutAMeasurementEachJobCountsOneSecond() {
        assertThat(BacklogMonitor.seconds(600, Double.NaN, 150)).isEqualTo(600.0);
        assertThat(BacklogMonitor.seconds(600, 3, 0)).as("no fresh worker figure").isEqualTo(600.0);
        assertThat(BacklogMonitor.seconds(600, 3, Double.POSITIVE_INFINITY)).isEqualTo(600.0);
        assertThat(BacklogMonitor.seconds(0, 3, 150)).isZero();
    }
}
