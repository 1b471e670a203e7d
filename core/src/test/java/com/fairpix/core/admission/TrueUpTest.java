package com.fairpix.core.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class TrueUpTest {
    @Test
    void aJobWithinItsEstimatesMarginAndTheSlackOwesNothing() {
        assertThat(TrueUp.owed(3.0, 3.0)).isZero();
        assertThat(TrueUp.owed(3.0, 5.6)).as("a thumbnail measured on a loaded machine: under 3 × 1.3 + 2").isZero();
        assertThat(TrueUp.owed(3.0, 3.0 * 1.3 + 2.0)).as("at the bound itself").isZero();
    }

    @Test
    void pastTheBoundTheWholeDifferenceIsOwed() {
        assertThat(TrueUp.owed(3.0, 6.0)).isCloseTo(3.0, within(1e-9));
        assertThat(TrueUp.owed(9.3, 161.8)).as("a blur of the whole image").isCloseTo(152.5, within(1e-9));
        assertThat(TrueUp.owed(100, 131)).as("30 % over a large estimate is within its margin").isZero();
        assertThat(TrueUp.owed(100, 133)).as("past 130 + 2").isCloseTo(33, within(1e-9));
    }
}
