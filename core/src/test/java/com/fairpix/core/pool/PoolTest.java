package com.fairpix.core.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A pool's wire name is its lower-case name; anything else is refused with the valid names. */
class PoolTest {
    @Test
    void wireNamesAreLowerCase() {
        assertThat(Pool.NAMES).containsExactly("cpu", "gpu");
        assertThat(Pool.parse("gpu")).isEqualTo(Pool.GPU);
        assertThat(Pool.CPU.wire()).isEqualTo("cpu");
    }

    @Test
    void anUnknownNameIsRefusedListingTheValidOnes() {
        assertThatThrownBy(() -> Pool.parse("tpu")).isInstanceOf(IllegalArgumentException.class).hasMessage("pool must be cpu or gpu, got tpu");
        assertThat(Pool.find("CPU")).as("the wire name is lower-case").isEmpty();
        assertThat(Pool.find(null)).isEmpty();
    }
}
