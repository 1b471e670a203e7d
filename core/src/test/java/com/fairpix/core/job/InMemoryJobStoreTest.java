package com.fairpix.core.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.EnumSet;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The in-memory store keeps the Redis store's rules (JobStoreIT holds the Redis one to them). */
class InMemoryJobStoreTest {
    static final Instant T = Instant.parse("2026-12-01T12:00:00Z");

    static JobRecord queued(String tenant, String id) {
        return new JobRecord(id, tenant, JobState.QUEUED, "cpu", T, null, null, null,
                new JobRecord.Original("tenants/" + tenant + "/originals/x.jpg", "jpeg", 1, "0", 1, 1),
                JobSpec.parse("{\"variants\":{\"t\":[{\"op\":\"encode\",\"format\":\"jpeg\"}]}}"), Map.of(), null, 0);
    }

    @Test
    void aTransitionReSentWithTheSameRecordIsReportedAppliedAndAnotherIsRefused() {
        JobStore jobs = new InMemoryJobStore();
        JobRecord queued = queued("acme", "j1");
        jobs.create(queued);
        JobRecord running = queued.running(T, T, 1);
        assertThat(jobs.transition(running, EnumSet.of(JobState.QUEUED)).applied()).isTrue();
        JobRecord done = running.done(T.plusSeconds(1), Map.of());
        assertThat(jobs.transition(done, EnumSet.of(JobState.RUNNING)).applied()).isTrue();
        assertThat(jobs.transition(done, EnumSet.of(JobState.RUNNING)).applied()).as("the same write, re-sent").isTrue();
        JobStore.Transition other = jobs.transition(running.done(T.plusSeconds(2), Map.of()), EnumSet.of(JobState.RUNNING));
        assertThat(other.applied()).isFalse();
        assertThat(other.found()).isEqualTo(JobState.DONE);
        assertThat(jobs.transition(queued("acme", "missing"), EnumSet.of(JobState.QUEUED))).isEqualTo(new JobStore.Transition(false, null));
    }

    @Test
    void aPageEndsBeforeTheRecordThatWouldPassItsBytesAndHoldsAtLeastOne() {
        JobStore jobs = new InMemoryJobStore();
        for (String id : new String[] {"j1", "j2", "j3", "j4"}) jobs.create(queued("acme", id));
        long one = com.fairpix.core.json.Json.write(jobs.get("acme", "j1").orElseThrow()).length();
        JobStore.Page first = jobs.list("acme", null, 100, 2 * one + one / 2);
        assertThat(first.jobs()).extracting(JobRecord::id).containsExactly("j4", "j3");
        assertThat(first.nextCursor()).isEqualTo("j3");
        assertThat(jobs.list("acme", null, 100, 1).jobs()).extracting(JobRecord::id).containsExactly("j4");
        assertThat(jobs.list("acme", "j2", 100, 1).jobs()).extracting(JobRecord::id).containsExactly("j1");
        assertThat(jobs.list("acme", "j2", 100, 1).nextCursor()).isNull();
    }

    @Test
    void aJobIsItsTenantsOnlyAndListedNewestFirstInPages() {
        JobStore jobs = new InMemoryJobStore();
        for (String id : new String[] {"j1", "j2", "j3"}) jobs.create(queued("acme", id));
        assertThat(jobs.get("other", "j1")).isEmpty();
        assertThat(jobs.tenantOf("j2")).contains("acme");
        JobStore.Page first = jobs.list("acme", null, 2);
        assertThat(first.jobs()).extracting(JobRecord::id).containsExactly("j3", "j2");
        assertThat(first.nextCursor()).isEqualTo("j2");
        JobStore.Page second = jobs.list("acme", first.nextCursor(), 2);
        assertThat(second.jobs()).extracting(JobRecord::id).containsExactly("j1");
        assertThat(second.nextCursor()).isNull();
    }

    @Test
    void theEventMarkIsPerTerminalState() {
        JobStore jobs = new InMemoryJobStore();
        JobRecord done = queued("acme", "j1").running(T, T, 1).done(T, Map.of());
        jobs.create(done);
        assertThat(jobs.eventSent(done)).isFalse();
        jobs.markEventSent(done);
        assertThat(jobs.eventSent(done)).isTrue();
        assertThat(jobs.eventSent(done.failed(T, "x", "y"))).isFalse();
    }
}
