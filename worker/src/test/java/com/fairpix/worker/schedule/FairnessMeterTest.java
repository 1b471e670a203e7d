package com.fairpix.worker.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Jain's index, and the window the worker's fairness gauge reads it over. */
class FairnessMeterTest {
    @Test
    void jainIsOneForEqualSharesOneOverNForOneTakingAllAndNaNForNone() {
        assertThat(FairnessMeter.jain(List.of(3.0, 3.0, 3.0))).isEqualTo(1.0);
        assertThat(FairnessMeter.jain(List.of(5.0, 0.0, 0.0, 0.0))).isEqualTo(0.25);
        // (1 + 3)² / (2 · (1 + 9)) = 0.8
        assertThat(FairnessMeter.jain(List.of(1.0, 3.0))).isCloseTo(0.8, within(1e-12));
        assertThat(FairnessMeter.jain(List.of())).isNaN();
        assertThat(FairnessMeter.jain(List.of(0.0, 0.0))).isNaN();
    }

    @Test
    void aWindowCountsServicePerWeightOfTenantsBackloggedMostOfIt() {
        FairnessMeter meter = new FairnessMeter(Map.of("a", 1.0, "b", 2.0, "idle", 1.0)::get);
        for (int i = 0; i < 10; i++) meter.sample(i == 0 ? Set.of("a", "b", "idle") : Set.of("a", "b"));
        meter.served("a", 10);
        meter.served("b", 20);
        meter.served("idle", 1);
        assertThat(meter.closeWindow()).as("b got twice a's service at twice its weight; idle was backlogged 1 sample of 10").isEqualTo(1.0);
        assertThat(meter.lastIndex()).isEqualTo(1.0);
        assertThat(meter.closeWindow()).as("a new window with nobody backlogged").isNaN();
    }
}
