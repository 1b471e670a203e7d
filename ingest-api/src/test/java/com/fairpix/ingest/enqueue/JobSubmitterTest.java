package com.fairpix.ingest.enqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fairpix.core.error.Rejected;
import com.fairpix.core.error.RetryLater;
import com.fairpix.core.job.InMemoryJobStore;
import com.fairpix.core.job.JobMessage;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;
import com.fairpix.core.kafka.TenantPlacement;
import com.fairpix.core.metrics.TenantTags;
import com.fairpix.core.resilience.BreakerSettings;
import com.fairpix.core.resilience.Breakers;
import com.fairpix.core.resilience.Dependency;
import com.fairpix.core.storage.InMemoryObjectStore;
import com.fairpix.core.storage.ObjectStore;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.time.ManualClock;
import com.fairpix.ingest.admission.Admission;
import com.fairpix.ingest.admission.AdmissionConfig;
import com.fairpix.ingest.admission.Admissions;
import com.fairpix.ingest.admission.Decision;
import com.fairpix.ingest.overload.OverloadConfig;
import com.fairpix.ingest.overload.OverloadGuard;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import javax.imageio.ImageIO;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Accepting one upload, on small fakes of our own ports (objects, job records, Idempotency-Key
 * claims, the job queue, the counts, admission, the overload guard) and a hand-moved clock: what is
 * written where when it is accepted, and what is undone when a dependency fails.
 */
class JobSubmitterTest {
    static final String SPEC = "{\"variants\":{\"thumb\":[{\"op\":\"resize\",\"width\":16,\"height\":16},{\"op\":\"encode\",\"format\":\"png\"}]}}";
    static final Tenant ACME = Tenant.withDefaults("acme");
    static byte[] jpeg;

    @TempDir Path dir;
    final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T12:00:00Z"));
    final InMemoryJobStore jobs = new InMemoryJobStore();
    /** {@link #jobs} as the submitter sees it: its transitions fail while {@code down} (Redis lost mid-request). */
    final FlakyJobs flaky = new FlakyJobs(jobs);
    final Pending pending = new Pending();

    static final class FlakyJobs implements com.fairpix.core.job.JobStore {
        final com.fairpix.core.job.JobStore delegate;
        volatile boolean down;

        FlakyJobs(com.fairpix.core.job.JobStore delegate) {
            this.delegate = delegate;
        }

        @Override public void create(JobRecord job) { delegate.create(job); }
        @Override public java.util.Optional<JobRecord> get(String tenant, String jobId) { return delegate.get(tenant, jobId); }
        @Override public java.util.Optional<String> tenantOf(String jobId) { return delegate.tenantOf(jobId); }

        @Override
        public Transition transition(JobRecord next, java.util.Set<JobState> from) {
            if (down) throw new redis.clients.jedis.exceptions.JedisConnectionException("Connection reset");
            return delegate.transition(next, from);
        }

        @Override public void markEventSent(JobRecord job) { delegate.markEventSent(job); }
        @Override public boolean eventSent(JobRecord job) { return delegate.eventSent(job); }
        @Override public Page list(String tenant, String cursor, int limit, long maxBytes) { return delegate.list(tenant, cursor, limit, maxBytes); }
    }

    /** Sends noted pending, in memory. */
    static final class Pending implements PendingSends {
        final java.util.Map<String, Instant> since = new java.util.concurrent.ConcurrentHashMap<>();

        @Override public void add(String tenant, String jobId, Instant at) { since.put(tenant + "/" + jobId, at); }
        @Override public void remove(String tenant, String jobId) { since.remove(tenant + "/" + jobId); }

        @Override
        public java.util.List<PendingSends.Pending> olderThan(Instant cutoff, int limit) {
            return since.entrySet().stream().filter(e -> e.getValue().isBefore(cutoff)).limit(limit)
                    .map(e -> new PendingSends.Pending(e.getKey().substring(0, e.getKey().indexOf('/')), e.getKey().substring(e.getKey().indexOf('/') + 1), e.getValue()))
                    .toList();
        }
    }
    final InMemoryObjectStore objects = new InMemoryObjectStore();
    final Queue queue = new Queue();
    final InMemoryIdempotencyKeys keys = new InMemoryIdempotencyKeys(clock);
    final List<String> counted = new CopyOnWriteArrayList<>();
    final Leases admission = new Leases(Admissions.local(AdmissionConfig.defaults(), clock));
    final Guard overload = new Guard();
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    JobSubmitter submitter;

    /** The job topics: 8 partitions each; the messages sent, or {@link #failSends} thrown. */
    static final class Queue implements JobQueue {
        final List<JobMessage> sent = new CopyOnWriteArrayList<>();
        volatile Exception failSends;

        @Override
        public int partitions(String pool) {
            return 8;
        }

        @Override
        public void send(JobMessage message, int partition, Duration timeout) throws Exception {
            if (failSends != null) throw failSends;
            sent.add(message);
        }
    }

    /** The in-memory limiter, with the leases released recorded. */
    static final class Leases implements Admission {
        final Admission limiter;
        final List<String> decided = new CopyOnWriteArrayList<>();
        final List<String> released = new CopyOnWriteArrayList<>();

        Leases(Admission limiter) {
            this.limiter = limiter;
        }

        @Override
        public Decision decide(Tenant tenant, String pool, long costNano, String jobId) {
            decided.add(jobId);
            return limiter.decide(tenant, pool, costNano, jobId);
        }

        @Override
        public void charge(Tenant tenant, long costNano) {
            limiter.charge(tenant, costNano);
        }

        @Override
        public void release(String tenant, String jobId) {
            released.add(jobId);
            limiter.release(tenant, jobId);
        }
    }

    /** Real breakers; a breaker not closed refuses; {@link #shed} refuses admitted jobs. */
    static final class Guard implements OverloadGuard {
        final Breakers breakers = Breakers.of(new BreakerSettings(50, 80, Duration.ofSeconds(1), 20, 5, Duration.ofSeconds(5), 10, 95));
        volatile RetryLater shed;

        @Override
        public void checkBreakers() {
            for (Dependency d : Dependency.values()) if (breakers.get(d).getState() != CircuitBreaker.State.CLOSED) throw breakerOpen(d);
        }

        @Override
        public void checkAdmitted(Tenant tenant, String pool, Decision decision) {
            if (shed != null) throw shed;
        }

        @Override
        public RetryLater breakerOpen(Dependency d) {
            return RetryLater.dependency(d.id(), "The " + d.id() + " circuit breaker is open.", 5).with("breaker", "open");
        }

        @Override
        public Breakers breakers() {
            return breakers;
        }

        @Override
        public OverloadConfig config() {
            return new OverloadConfig(0.1, 1.2, Duration.ofSeconds(30), 0, 0, 60, 300, 0.1, Duration.ofSeconds(1),
                    Duration.ofSeconds(2), Duration.ofSeconds(5), "node-a");
        }

        @Override
        public double rampLevel() {
            return 1;
        }

        @Override
        public int sheddingLevel(String pool) {
            return 0;
        }

        @Override
        public double backlogSeconds(String pool) {
            return Double.NaN;
        }

        @Override
        public boolean farmBreakerOpen(Dependency d) {
            return false;
        }

        @Override
        public Map<String, Object> status() {
            return Map.of();
        }

        @Override
        public void close() {}
    }

    @BeforeAll
    static void image() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(new BufferedImage(64, 48, BufferedImage.TYPE_INT_RGB), "jpeg", out);
        jpeg = out.toByteArray();
    }

    @BeforeEach
    void wire() {
        submitter = new JobSubmitter(objects, flaky, keys, queue, (pool, tenant, at, cost) -> counted.add(pool + " " + tenant + " " + cost),
                meters, new TenantTags(meters, 10, clock::nanoTime), clock, admission, AdmissionConfig.defaults(), overload, null, new TenantPlacement(0))
                .reconcileWith(pending, Duration.ofMinutes(10));
    }

    JobSubmitter.Submission submit(byte[] image, String idempotencyKey) {
        try (Upload upload = Upload.of(image, dir)) {
            return submitter.submit(ACME, upload, SPEC, idempotencyKey);
        }
    }

    @Test
    void anAcceptedJobIsStoredRecordedQueuedAndCounted() {
        JobSubmitter.Submission s = submit(jpeg, null);

        JobRecord job = s.job();
        assertThat(s.replayed()).isFalse();
        assertThat(s.admission().allowed()).isTrue();
        assertThat(job.state()).isEqualTo(JobState.QUEUED);
        assertThat(job.original().width()).isEqualTo(64);
        assertThat(objects.get(job.original().key(), Long.MAX_VALUE)).isEqualTo(jpeg);
        assertThat(jobs.get("acme", job.id())).contains(job);
        assertThat(queue.sent).singleElement().satisfies(m -> {
            assertThat(m.jobId()).isEqualTo(job.id());
            assertThat(m.pool()).isEqualTo("cpu");
            assertThat(m.cost()).as("the tokens admission counted").isEqualTo(s.admission().costNano() / 1e9);
        });
        assertThat(counted).containsExactly("cpu acme " + s.admission().costNano() / 1e9);
        assertThat(admission.released).as("the lease is held until the job ends").isEmpty();
    }

    @Test
    void anS3PutThatFailsAnswersRetryLaterAndReleasesTheLeaseAndTheKey() {
        objects.failPuts(new IllegalStateException("connection reset"));

        RetryLater r = catchThrowableOfType(RetryLater.class, () -> submit(jpeg, "key-1"));

        assertThat(r.kind()).isEqualTo(RetryLater.Kind.DEPENDENCY);
        assertThat(r.what()).isEqualTo("s3");
        assertThat(r.retryAfterSeconds()).isEqualTo(5);
        assertThat(admission.released).isEqualTo(admission.decided);
        assertThat(keys.claims()).as("a retry with the same key is not told 'in flight'").isEmpty();
        assertThat(queue.sent).isEmpty();
        assertThat(jobs.list("acme", null, 10).jobs()).as("no record").isEmpty();
    }

    @Test
    void anObjectTheStoreRefusesIsTheRequestsFaultNotA503() {
        objects.failPuts(new ObjectStore.ObjectNotFoundException("bucket"));

        Rejected r = catchThrowableOfType(Rejected.class, () -> submit(jpeg, null));

        assertThat(r.problem()).isEqualTo("original-refused");
        assertThat(admission.released).hasSize(1);
    }

    @Test
    void aKafkaSendThatFailsMarksTheRecordNotAcceptedAndAnswersRetryLater() {
        queue.failSends = new ExecutionException(new org.apache.kafka.common.errors.TimeoutException("no leader"));

        RetryLater r = catchThrowableOfType(RetryLater.class, () -> submit(jpeg, null));

        assertThat(r.what()).isEqualTo("kafka");
        JobRecord job = jobs.list("acme", null, 10).jobs().getFirst();
        assertThat(job.state()).isEqualTo(JobState.FAILED);
        assertThat(job.error().reason()).isEqualTo("enqueue-failed");
        assertThat(admission.released).containsExactly(job.id());
        assertThat(counted).isEmpty();
    }

    @Test
    void unacknowledgedSendsOpenTheKafkaBreakerButARefusedRecordDoesNot() {
        // The Kafka breaker counts only outages: an ack that never came is one, RecordTooLarge is not.
        queue.failSends = new ExecutionException(new RecordTooLargeException("1 MiB"));
        for (int i = 0; i < 5; i++) catchThrowableOfType(Rejected.class, () -> submit(jpeg, null));
        CircuitBreaker kafka = overload.breakers.get(Dependency.KAFKA);
        assertThat(kafka.getState()).isEqualTo(CircuitBreaker.State.CLOSED);

        queue.failSends = new java.util.concurrent.TimeoutException();
        for (int i = 0; i < 5; i++) assertThat(catchThrowableOfType(RetryLater.class, () -> submit(jpeg, null)).what()).isEqualTo("kafka");
        assertThat(kafka.getState()).isEqualTo(CircuitBreaker.State.OPEN);
    }

    @Test
    void anAcceptedJobLeavesNoPendingSendAndTheSweepNeverTouchesIt() {
        JobSubmitter.Submission s = submit(jpeg, null);
        assertThat(pending.since).isEmpty();

        clock.advance(Duration.ofHours(1));
        assertThat(submitter.reconcileOrphans()).isZero();
        assertThat(jobs.get("acme", s.job().id()).orElseThrow().state()).isEqualTo(JobState.QUEUED);
    }

    @Test
    void aRecordLeftQueuedByAFailedSendThatCouldNotBeMarkedIsFailedByTheSweepPastTheDeadline() {
        // Kafka fails the send and Redis goes away before the record can say FAILED: the client gets
        // a 503, the record would stay QUEUED until its retention (issue 34).
        queue.failSends = new ExecutionException(new org.apache.kafka.common.errors.TimeoutException("no leader"));
        flaky.down = true;
        catchThrowableOfType(RetryLater.class, () -> submit(jpeg, null));
        flaky.down = false;
        JobRecord orphan = jobs.list("acme", null, 10).jobs().getFirst();
        assertThat(orphan.state()).isEqualTo(JobState.QUEUED);

        clock.advance(Duration.ofMinutes(9));
        assertThat(submitter.reconcileOrphans()).as("before the deadline").isZero();
        assertThat(jobs.get("acme", orphan.id()).orElseThrow().state()).isEqualTo(JobState.QUEUED);

        clock.advance(Duration.ofMinutes(2));
        assertThat(submitter.reconcileOrphans()).isEqualTo(1);
        JobRecord failed = jobs.get("acme", orphan.id()).orElseThrow();
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.error().reason()).isEqualTo("enqueue-failed");
        assertThat(pending.since).as("forgotten once settled").isEmpty();
        assertThat(submitter.reconcileOrphans()).isZero();
    }

    @Test
    void aSendWhoseRecordMovedOnIsForgottenNotFailed() {
        // Acknowledged, but the pending note could not be removed (Redis blinked): a worker runs it.
        JobSubmitter.Submission s = submit(jpeg, null);
        pending.add("acme", s.job().id(), s.job().createdAt());
        JobRecord running = jobs.get("acme", s.job().id()).orElseThrow().running(clock.instant(), clock.instant(), 1);
        jobs.transition(running, java.util.Set.of(JobState.QUEUED));

        clock.advance(Duration.ofHours(1));
        assertThat(submitter.reconcileOrphans()).isZero();
        assertThat(jobs.get("acme", s.job().id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(pending.since).isEmpty();
    }

    @Test
    void aMessageKafkaRefusesAsTooLargeIsRejectedAndItsRecordMarkedNotAccepted() {
        queue.failSends = new ExecutionException(new RecordTooLargeException("too large"));

        Rejected r = catchThrowableOfType(Rejected.class, () -> submit(jpeg, null));

        assertThat(r.kind()).isEqualTo(Rejected.Kind.TOO_LARGE);
        assertThat(r.problem()).isEqualTo("job-too-large");
        assertThat(jobs.list("acme", null, 10).jobs().getFirst().state()).isEqualTo(JobState.FAILED);
    }

    @Test
    void anOpenBreakerAnswersBeforeAnyWork() {
        overload.breakers.get(Dependency.KAFKA).transitionToForcedOpenState();

        RetryLater r = catchThrowableOfType(RetryLater.class, () -> submit(jpeg, "key-1"));

        assertThat(r.what()).isEqualTo("kafka");
        assertThat(r.members()).containsEntry("breaker", "open");
        assertThat(admission.decided).as("nothing charged").isEmpty();
        assertThat(keys.claims()).isEmpty();
    }

    @Test
    void aJobShedAfterAdmissionGivesItsLeaseBack() {
        overload.shed = RetryLater.overloaded("shed-borrowed", "backlog over its bound", 40);

        assertThat(catchThrowableOfType(RetryLater.class, () -> submit(jpeg, null)).what()).isEqualTo("shed-borrowed");
        assertThat(admission.released).isEqualTo(admission.decided).hasSize(1);
        assertThat(queue.sent).isEmpty();
    }

    @Test
    void theSameRequestWithTheSameIdempotencyKeyReplaysTheJobAndAnotherIsRefused() {
        JobSubmitter.Submission first = submit(jpeg, "key-1");
        JobSubmitter.Submission again = submit(jpeg, "key-1");

        assertThat(again.replayed()).isTrue();
        assertThat(again.job().id()).isEqualTo(first.job().id());
        assertThat(again.admission()).as("not charged again").isNull();
        assertThat(queue.sent).hasSize(1);

        byte[] other = jpeg.clone();
        other[other.length - 3] ^= 1;
        assertThat(catchThrowableOfType(Rejected.class, () -> submit(other, "key-1")).problem()).isEqualTo("idempotency-key-reused");
    }
}
