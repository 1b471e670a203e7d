package com.fairpix.ingest.overload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ShedRetryAfterTest {
    @Test
    void retryAfterIsTheQueueSecondsOverTheBound() {
        assertThat(OverloadGuard.shedRetryAfter(72.4, 60)).isEqualTo(13);
        assertThat(OverloadGuard.shedRetryAfter(60.2, 60)).as("just over: at least 1").isEqualTo(1);
        assertThat(OverloadGuard.shedRetryAfter(59, 60)).as("the farm view sheds on another node's reading").isEqualTo(1);
        assertThat(OverloadGuard.shedRetryAfter(10_000, 300)).as("capped").isEqualTo(OverloadGuard.SHED_RETRY_AFTER_MAX_SECONDS);
    }

    @Test
    void withoutAReadingTheDefault() {
        assertThat(OverloadGuard.shedRetryAfter(Double.NaN, 60)).isEqualTo(OverloadGuard.SHED_RETRY_AFTER_SECONDS);
    }
}
