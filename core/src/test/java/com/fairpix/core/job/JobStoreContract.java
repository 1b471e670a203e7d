package com.fairpix.core.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.json.Json;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What every {@link JobStore} does, run on each implementation ({@code InMemoryJobStoreTest} on the
 * fake, {@code RedisJobStoreIT} on Redis). Each test works under tenants of its own, so a shared
 * Redis holds other runs' jobs without disturbing it.
 */
public abstract class JobStoreContract {
    /** The store under test; records may expire, but not within a test (a minute at least). */
    protected abstract JobStore store();

    private final String tenant = "jsc-" + UUID.randomUUID();
    private final Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);

    /** A queued job of {@code tenant} whose UUIDv7 id sorts {@code n} ms after this test's start. */
    private JobRecord queued(String tenant, int n) {
        String id = JobIds.next(Clock.fixed(now.plusMillis(n), java.time.ZoneOffset.UTC));
        return new JobRecord(id, tenant, JobState.QUEUED, "cpu", now.plusMillis(n), null, null, null,
                new JobRecord.Original("tenants/" + tenant + "/originals/x.jpg", "jpeg", 1, "0", 1, 1),
                JobSpec.parse("{\"variants\":{\"t\":[{\"op\":\"encode\",\"format\":\"jpeg\"}]}}"), Map.of(), null, 0);
    }

    /** {@code n} jobs of the tenant, created oldest first. */
    private List<JobRecord> created(int n) {
        List<JobRecord> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            JobRecord job = queued(tenant, i);
            store().create(job);
            jobs.add(job);
        }
        return jobs;
    }

    private static long bytes(JobRecord job) {
        return Json.write(job).getBytes(StandardCharsets.UTF_8).length;
    }

    private static List<String> ids(List<JobRecord> jobs) {
        return jobs.stream().map(JobRecord::id).toList();
    }

    @Test
    void aCreatedJobIsReadBackWholeByItsTenantOnly() {
        JobRecord job = queued(tenant, 0);
        store().create(job);
        assertThat(store().get(tenant, job.id())).contains(job);
        assertThat(store().tenantOf(job.id())).contains(tenant);
        assertThat(store().get("jsc-other-" + UUID.randomUUID(), job.id())).as("another tenant's job is absent").isEmpty();
    }

    @Test
    void anUnknownJobIsAbsentAndOwnedByNobody() {
        String id = UUID.randomUUID().toString();
        assertThat(store().get(tenant, id)).isEmpty();
        assertThat(store().tenantOf(id)).isEmpty();
    }

    @Test
    void aRetriedCreateLeavesOneJob() {
        JobRecord job = queued(tenant, 0);
        store().create(job);
        store().create(job);
        JobStore.Page page = store().list(tenant, null, 100);
        assertThat(ids(page.jobs())).containsExactly(job.id());
        assertThat(page.nextCursor()).isNull();
    }

    @Test
    void aTransitionAppliesFromAnAllowedStateAndReportsTheStateFound() {
        JobRecord queued = created(1).get(0);
        JobRecord running = queued.running(now, now, 1);
        assertThat(store().transition(running, EnumSet.of(JobState.QUEUED))).isEqualTo(new JobStore.Transition(true, JobState.QUEUED));
        assertThat(store().get(tenant, queued.id())).contains(running);
    }

    @Test
    void aTransitionFromAStateNotAllowedIsRefusedAndWritesNothing() {
        JobRecord queued = created(1).get(0);
        JobRecord done = queued.running(now, now, 1).done(now.plusSeconds(1), Map.of());
        assertThat(store().transition(done, EnumSet.of(JobState.RUNNING))).isEqualTo(new JobStore.Transition(false, JobState.QUEUED));
        assertThat(store().get(tenant, queued.id())).contains(queued);
    }

    /**
     * A client re-sends a write after a timeout (a cluster client after a read timeout): the write
     * already there is reported applied, or the worker would skip the job's completion event; another
     * record into the same state (another attempt's DONE) is still refused.
     */
    @Test
    void aTransitionReSentWithTheSameRecordIsReportedAppliedAndAnotherIsRefused() {
        JobRecord queued = created(1).get(0);
        JobRecord running = queued.running(now, now, 1);
        assertThat(store().transition(running, EnumSet.of(JobState.QUEUED)).applied()).isTrue();
        JobRecord done = running.done(now.plusSeconds(1), Map.of());
        assertThat(store().transition(done, EnumSet.of(JobState.RUNNING)).applied()).isTrue();
        assertThat(store().transition(done, EnumSet.of(JobState.RUNNING))).as("the same write, re-sent")
                .isEqualTo(new JobStore.Transition(true, JobState.DONE));
        JobStore.Transition other = store().transition(running.done(now.plusSeconds(2), Map.of()), EnumSet.of(JobState.RUNNING));
        assertThat(other).as("another attempt's DONE").isEqualTo(new JobStore.Transition(false, JobState.DONE));
        assertThat(store().get(tenant, queued.id())).contains(done);
    }

    @Test
    void aTransitionOfAMissingJobIsRefusedWithNothingFound() {
        assertThat(store().transition(queued(tenant, 0), EnumSet.of(JobState.QUEUED))).isEqualTo(new JobStore.Transition(false, null));
        assertThat(store().get(tenant, queued(tenant, 0).id())).isEmpty();
    }

    @Test
    void aTenantsJobsAreListedNewestFirstInPagesOfTheLimit() {
        List<JobRecord> jobs = created(3);
        JobStore.Page first = store().list(tenant, null, 2);
        assertThat(ids(first.jobs())).containsExactly(jobs.get(2).id(), jobs.get(1).id());
        assertThat(first.nextCursor()).isEqualTo(jobs.get(1).id());
        JobStore.Page second = store().list(tenant, first.nextCursor(), 2);
        assertThat(ids(second.jobs())).containsExactly(jobs.get(0).id());
        assertThat(second.nextCursor()).as("the end").isNull();
        assertThat(store().list("jsc-other-" + UUID.randomUUID(), null, 2)).isEqualTo(new JobStore.Page(List.of(), null));
    }

    @Test
    void aPageEndsBeforeTheRecordThatWouldPassItsBytesAndHoldsAtLeastOne() {
        List<JobRecord> jobs = created(4);
        long one = bytes(jobs.get(0));
        JobStore.Page first = store().list(tenant, null, 100, 2 * one + one / 2);
        assertThat(ids(first.jobs())).containsExactly(jobs.get(3).id(), jobs.get(2).id());
        assertThat(first.nextCursor()).isEqualTo(jobs.get(2).id());
        JobStore.Page exact = store().list(tenant, null, 100, 2 * one);
        assertThat(ids(exact.jobs())).as("a record that fills the page to the byte fits").containsExactly(jobs.get(3).id(), jobs.get(2).id());
        JobStore.Page tiny = store().list(tenant, null, 100, 1);
        assertThat(ids(tiny.jobs())).as("one record over the bytes still makes a page").containsExactly(jobs.get(3).id());
        assertThat(tiny.nextCursor()).isEqualTo(jobs.get(3).id());
        JobStore.Page last = store().list(tenant, jobs.get(1).id(), 100, 1);
        assertThat(ids(last.jobs())).containsExactly(jobs.get(0).id());
        assertThat(last.nextCursor()).isNull();
        JobStore.Page rest = store().list(tenant, first.nextCursor(), 100, Long.MAX_VALUE);
        assertThat(ids(rest.jobs())).containsExactly(jobs.get(1).id(), jobs.get(0).id());
    }

    @Test
    void theEventMarkIsPerTerminalStateAndIdempotent() {
        JobRecord queued = created(1).get(0);
        JobRecord running = queued.running(now, now, 1);
        store().transition(running, EnumSet.of(JobState.QUEUED));
        JobRecord failed = running.failed(now.plus(Duration.ofSeconds(1)), "x", "y");
        store().transition(failed, EnumSet.of(JobState.RUNNING));
        assertThat(store().eventSent(failed)).isFalse();
        store().markEventSent(failed);
        store().markEventSent(failed);
        assertThat(store().eventSent(failed)).isTrue();
        assertThat(store().eventSent(running.done(now, Map.of()))).as("another terminal state's event").isFalse();
        assertThat(store().get(tenant, queued.id())).as("the mark leaves the record as it was").contains(failed);
    }
}
