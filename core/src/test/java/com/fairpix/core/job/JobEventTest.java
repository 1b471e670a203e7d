package com.fairpix.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobEventTest {
    static final Instant T0 = Instant.parse("2026-12-07T12:00:00Z");
    final JobRecord queued = new JobRecord("j1", "acme", JobState.QUEUED, "cpu", T0, T0, null, null,
            new JobRecord.Original("tenants/acme/originals/j1.jpg", "jpeg", 100, "x", 64, 48),
            JobSpec.parse("{\"variants\":{\"t\":[{\"op\":\"encode\",\"format\":\"png\"}]}}"), Map.of(), null, 0);

    @Test
    void aFinishedJobsEventSaysHowItEndedWithAnIdThatDoesNotChangeOnARepublish() {
        JobRecord running = queued.running(T0.plusSeconds(1), T0, 1);
        JobEvent done = JobEvent.of(running.done(T0.plusSeconds(2), Map.of()), T0.plusSeconds(2));
        JobEvent failed = JobEvent.of(running.failed(T0.plusSeconds(2), "decode-failed", "not an image"), T0.plusSeconds(2));

        assertThat(done.type()).isEqualTo(JobEvent.SUCCEEDED);
        assertThat(failed.type()).isEqualTo(JobEvent.FAILED);
        assertThat(done.eventId()).isEqualTo(JobEvent.of(running.done(T0.plusSeconds(9), Map.of()), T0.plusSeconds(9)).eventId());
        assertThat(done.jobVersion()).isEqualTo(6);
    }

    @Test
    void onlyACompletionIsAnEvent() {
        assertThatThrownBy(() -> JobEvent.of(queued, T0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("QUEUED");
        assertThatThrownBy(() -> JobEvent.of(queued.running(T0, T0, 1), T0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobEvent.of(queued.cancelled(T0), T0)).isInstanceOf(IllegalArgumentException.class);
    }
}
