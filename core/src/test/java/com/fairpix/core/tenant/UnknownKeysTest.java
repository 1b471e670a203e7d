package com.fairpix.core.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The negative cache of unknown API keys is bounded in entries and in time, and forgets a key on demand. */
class UnknownKeysTest {
    final AtomicLong nanos = new AtomicLong();
    final UnknownKeys keys = new UnknownKeys(3, 1_000, nanos::get);

    @Test
    void anEntryLivesItsTtlAndNoLonger() {
        keys.add("h1");
        nanos.set(999);
        assertThat(keys.contains("h1")).isTrue();
        nanos.set(1_000);
        assertThat(keys.contains("h1")).isFalse();
        assertThat(keys.size()).isZero();
    }

    @Test
    void pastItsSizeTheOldestEntryGoesFirst() {
        for (int i = 0; i < 10; i++) keys.add("h" + i);
        assertThat(keys.size()).isEqualTo(3);
        assertThat(keys.contains("h6")).isFalse();
        assertThat(keys.contains("h7")).isTrue();
        assertThat(keys.contains("h9")).isTrue();
    }

    @Test
    void aKeyCreatedOrChangedIsForgottenAtOnce() {
        keys.add("h1");
        keys.add("h2");
        keys.remove("h1");
        assertThat(keys.contains("h1")).isFalse();
        assertThat(keys.contains("h2")).isTrue();
        keys.clear();
        assertThat(keys.size()).isZero();
    }
}
