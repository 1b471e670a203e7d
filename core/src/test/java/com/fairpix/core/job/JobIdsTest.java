package com.fairpix.core.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/** Job ids are UUIDv7 (RFC 9562 §5.7): time-ordered, canonical text. */
class JobIdsTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T12:00:00.123Z"));

    @Test
    void idIsAVersion7UuidWithTheRfcVariant() {
        for (int i = 0; i < 100; i++) {
            String id = JobIds.next(clock);
            UUID uuid = UUID.fromString(id);

            assertThat(uuid.version()).isEqualTo(7);
            assertThat(id.charAt(14)).as("version nibble in the text").isEqualTo('7');
            assertThat(uuid.variant()).as("variant bits 10").isEqualTo(2);
            assertThat(id.charAt(19)).isIn('8', '9', 'a', 'b');
            assertThat(uuid.toString()).isEqualTo(id);
        }
    }

    @Test
    void first48BitsAreTheCreationTimeInMilliseconds() {
        String id = JobIds.next(clock);

        long millis = UUID.fromString(id).getMostSignificantBits() >>> 16;

        assertThat(millis).isEqualTo(clock.millis());
    }

    @Test
    void idsMadeTwoMillisecondsApartSortByTimeAsText() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add(JobIds.next(clock));
            clock.advance(Duration.ofMillis(2));
        }

        assertThat(ids).isSorted();
        assertThat(new HashSet<>(ids)).hasSize(ids.size());
    }

    @Test
    void tenThousandIdsAreDistinct() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 10_000; i++) ids.add(JobIds.next(clock));

        assertThat(ids).hasSize(10_000);
    }

    @Test
    void generatedIdsAreValid() {
        assertThat(JobIds.isValid(JobIds.next(clock))).isTrue();
        assertThat(JobIds.isValid("0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b")).isTrue();
    }

    @ParameterizedTest(name = "[{0}]")
    @NullAndEmptySource
    @ValueSource(strings = {
        "0190A5B2-7C3D-7E4F-8A1B-2C3D4E5F6A7B",   // upper case: not the canonical form
        "0190a5b27c3d7e4f8a1b2c3d4e5f6a7b",       // no hyphens
        "{0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b}", // braces
        "0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7",    // one short
        "0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b0",  // one long
        "0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7g",   // not hex
        "0190a5b2-7c3d-7e4f-8a1b2-c3d4e5f6a7b",   // hyphen moved
        "../../tenants/other/results/x/thumbs",   // a path, 36 characters
        "0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7\n",  // trailing newline
    })
    void anythingElseIsNotAJobId(String id) {
        assertThat(JobIds.isValid(id)).isFalse();
    }
}
