package com.fairpix.ingest.overload.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ShedRetryAfterTest {
    @Test
    void retryAfterIsTheQueueSecondsOverTheBound() {
        assertThat(Shedding.shedRetryAfter(72.4, 60)).isEqualTo(13);
        assertThat(Shedding.shedRetryAfter(60.2, 60)).as("just over: at least 1").isEqualTo(1);
        assertThat(Shedding.shedRetryAfter(59, 60)).as("the farm view sheds on another node's reading").isEqualTo(1);
        assertThat(Shedding.shedRetryAfter(10_000, 300)).as("capped").isEqualTo(Shedding.SHED_RETRY_AFTER_MAX_SECONDS);
    }

    @Test
    void withoutAReadingTheDefault() {
        assertThat(Shedding.shedRetryAfter(Double.NaN, 60)).isEqualTo(Shedding.SHED_RETRY_AFTER_SECONDS);
    }
}
