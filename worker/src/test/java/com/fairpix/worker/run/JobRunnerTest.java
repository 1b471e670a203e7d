package com.fairpix.worker.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.job.InMemoryJobStore;
import com.fairpix.core.job.JobEvent;
import com.fairpix.core.job.JobMessage;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.JobState;
import com.fairpix.core.metrics.MetricNames;
import com.fairpix.core.metrics.TenantTags;
import com.fairpix.core.resilience.GuardedObjectStore;
import com.fairpix.core.storage.InMemoryObjectStore;
import com.fairpix.core.time.ManualClock;
import com.fairpix.worker.notify.EventPublisher;
import com.fairpix.worker.process.ImagePipeline;
import com.fairpix.worker.store.ResultWriter;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One attempt at a job, on our own fakes (jobs and objects in memory, events recorded) and the
 * real image pipeline: what ends DONE, what FAILED and dead-lettered, what retries and when.
 */
class JobRunnerTest {
    static final int MAX_ATTEMPTS = 3;
    static final Duration BACKOFF = Duration.ofMillis(500);
    static final Instant T0 = Instant.parse("2026-12-01T12:00:00Z");
    static final String ORIGINAL = "tenants/acme/originals/2026/12/01/j1.jpg";
    static final JobSpec THUMB = JobSpec.parse("{\"variants\":{\"thumb\":[{\"op\":\"resize\",\"width\":16,\"height\":16},{\"op\":\"encode\",\"format\":\"png\"}]}}");
    static ImagePipeline pipeline;
    static byte[] jpeg;

    final ManualClock clock = new ManualClock(T0);
    final InMemoryJobStore jobs = new InMemoryJobStore();
    final InMemoryObjectStore objects = new InMemoryObjectStore();
    final RecordedEvents events = new RecordedEvents();
    final List<String> released = new CopyOnWriteArrayList<>();
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    /** Events and dead letters as the runner sent them. */
    static final class RecordedEvents implements EventPublisher {
        final List<JobEvent> events = new CopyOnWriteArrayList<>();
        final List<String> deadLetters = new CopyOnWriteArrayList<>();

        @Override
        public void publish(JobEvent event) {
            events.add(event);
        }

        @Override
        public void deadLetter(String tenant, byte[] message, String reason, String detail) {
            deadLetters.add(tenant + " " + reason);
        }
    }

    @BeforeAll
    static void image() throws IOException {
        pipeline = new ImagePipeline(100_000_000L);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(new BufferedImage(64, 48, BufferedImage.TYPE_INT_RGB), "jpeg", out);
        jpeg = out.toByteArray();
    }

    /** The real pipeline, for the other runner tests. */
    static ImagePipeline pipeline() throws IOException {
        if (pipeline == null) image();
        return pipeline;
    }

    /** A 64x48 JPEG, for the other runner tests. */
    static byte[] jpeg() throws IOException {
        if (jpeg == null) image();
        return jpeg;
    }

    JobRunner runner(com.fairpix.core.storage.ObjectStore store) {
        return new JobRunner(jobs, new ResultWriter(store, 1 << 20), pipeline, events, meters, new TenantTags(meters, 10, clock::nanoTime),
                clock, MAX_ATTEMPTS, BACKOFF, (tenant, job) -> released.add(tenant + "/" + job));
    }

    JobRunner runner() {
        return runner(objects);
    }

    JobMessage queued(int attempts, JobState state) {
        JobRecord job = new JobRecord("j1", "acme", state, "cpu", T0, null, null, null,
                new JobRecord.Original(ORIGINAL, "jpeg", jpeg.length, "x", 64, 48), THUMB, Map.of(), null, attempts);
        jobs.create(job);
        return new JobMessage(JobMessage.SCHEMA_VERSION, job.id(), job.tenant(), job.pool(), job.original(), job.spec(), 1, T0);
    }

    JobRecord stored() {
        return jobs.get("acme", "j1").orElseThrow();
    }

    @Test
    void aJobRunsToDoneWithItsResultsStoredItsEventSentAndItsLeaseReleased() throws Exception {
        objects.put(ORIGINAL, jpeg, "image/jpeg");
        JobMessage m = queued(0, JobState.QUEUED);
        clock.advance(Duration.ofSeconds(2));

        assertThat(runner().run(m, 1, T0)).isEqualTo(new JobRunner.Outcome.Finished(true));

        JobRecord done = stored();
        assertThat(done.state()).isEqualTo(JobState.DONE);
        assertThat(done.attempts()).isEqualTo(1);
        assertThat(done.queuedAt()).isEqualTo(T0);
        assertThat(done.startedAt()).isEqualTo(T0.plusSeconds(2));
        JobRecord.Result thumb = done.results().get("thumb");
        assertThat(thumb.width()).isEqualTo(16);
        assertThat(objects.get(thumb.key(), 1 << 20)).hasSize((int) thumb.size());
        assertThat(events.events).extracting(JobEvent::state).containsExactly(JobState.DONE);
        assertThat(jobs.eventSent(done)).isTrue();
        assertThat(events.deadLetters).isEmpty();
        assertThat(released).containsExactly("acme/j1");
    }

    @Test
    void aJobOnAReservedSlotWritesItsOwnResultsInsteadOfQueueingBehindTheFinishingThreads() throws Exception {
        objects.put(ORIGINAL, jpeg, "image/jpeg");
        JobMessage m = queued(0, JobState.QUEUED);
        List<Runnable> queuedWrites = new java.util.ArrayList<>();
        JobRunner runner = runner().finishOn(queuedWrites::add, 2);

        assertThat(runner.run(m, 1, T0, true)).as("written on this thread").isEqualTo(new JobRunner.Outcome.Finished(true));
        assertThat(queuedWrites).isEmpty();
        assertThat(stored().state()).isEqualTo(JobState.DONE);

        // A shared slot's job hands its writes over: nothing is written until a finishing thread runs them.
        JobMessage other = new JobMessage(JobMessage.SCHEMA_VERSION, "j2", "acme", "cpu", m.original(), m.spec(), 1, T0);
        jobs.create(new JobRecord("j2", "acme", JobState.QUEUED, "cpu", T0, null, null, null, m.original(), m.spec(), Map.of(), null, 0));
        assertThat(runner.run(other, 1, T0, false)).isInstanceOf(JobRunner.Outcome.Finishing.class);
        assertThat(jobs.get("acme", "j2").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        queuedWrites.forEach(Runnable::run);
        assertThat(jobs.get("acme", "j2").orElseThrow().state()).isEqualTo(JobState.DONE);
    }

    @Test
    void aPermanentErrorFailsTheJobAtOnceWithOneDeadLetter() throws Exception {
        objects.put(ORIGINAL, "not an image".getBytes(), "image/jpeg");
        JobMessage m = queued(0, JobState.QUEUED);

        assertThat(runner().run(m, 1, T0)).isEqualTo(new JobRunner.Outcome.Finished(true));

        JobRecord failed = stored();
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.error().reason()).isEqualTo("unsupported-format");
        assertThat(failed.attempts()).as("no retry").isEqualTo(1);
        assertThat(events.deadLetters).containsExactly("acme unsupported-format");
        assertThat(events.events).extracting(JobEvent::state).containsExactly(JobState.FAILED);
        assertThat(released).containsExactly("acme/j1");
    }

    @Test
    void aTransientFailureRetriesWithADoublingBackoffUntilTheLastAttemptThenFailsWithOneDeadLetter() throws Exception {
        // No original (yet): the read fails, and a missing object may just not be visible yet.
        JobMessage m = queued(0, JobState.QUEUED);
        JobRunner runner = runner();

        assertThat(runner.run(m, 1, T0)).isEqualTo(new JobRunner.Outcome.RetryAfter(BACKOFF));
        assertThat(stored().state()).isEqualTo(JobState.RUNNING);
        assertThat(stored().attempts()).isEqualTo(1);
        assertThat(runner.run(m, 2, T0)).isEqualTo(new JobRunner.Outcome.RetryAfter(BACKOFF.multipliedBy(2)));
        assertThat(released).as("the lease is kept while the job may still run").isEmpty();

        assertThat(runner.run(m, 3, T0)).isEqualTo(new JobRunner.Outcome.Finished(true));
        JobRecord failed = stored();
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.error().reason()).isEqualTo("attempts-exhausted");
        assertThat(failed.attempts()).isEqualTo(MAX_ATTEMPTS);
        assertThat(events.deadLetters).containsExactly("acme attempts-exhausted");
        assertThat(released).containsExactly("acme/j1");
    }

    @Test
    void aJobWhoseRecordHoldsEveryAttemptIsFailedWithoutRunningAgain() throws Exception {
        // Three attempts recorded and none finished: each died with its worker (a poison job).
        JobMessage m = queued(MAX_ATTEMPTS, JobState.RUNNING);

        assertThat(runner().run(m, 1, T0)).isEqualTo(new JobRunner.Outcome.Finished(true));

        JobRecord failed = stored();
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.error().reason()).isEqualTo("attempts-exhausted");
        assertThat(failed.attempts()).as("no further attempt recorded").isEqualTo(MAX_ATTEMPTS);
        assertThat(events.deadLetters).containsExactly("acme attempts-exhausted");
        assertThat(meters.counter(MetricNames.WORKER_JOB_ERRORS, "error", "attempts-exhausted").count()).isEqualTo(1);
    }

    @Test
    void aRedeliveredJobThatEndedDoesNoWorkAgainButSendsAnEventItMissed() throws Exception {
        JobMessage m = queued(1, JobState.DONE);

        assertThat(runner().run(m, 1, T0)).isEqualTo(new JobRunner.Outcome.Finished(false));
        assertThat(events.events).extracting(JobEvent::state).containsExactly(JobState.DONE);
        assertThat(runner().run(m, 1, T0)).isEqualTo(new JobRunner.Outcome.Finished(false));
        assertThat(events.events).as("sent once").hasSize(1);
        assertThat(released).containsExactly("acme/j1", "acme/j1");
    }

    @Test
    void anOpenBreakerCostsTheJobNoAttempt() throws Exception {
        CircuitBreaker s3 = CircuitBreaker.ofDefaults("s3");
        s3.transitionToForcedOpenState();
        JobMessage m = queued(0, JobState.QUEUED);

        JobRunner.Outcome outcome = runner(new GuardedObjectStore(objects, s3)).run(m, 1, T0);

        assertThat(outcome).isInstanceOf(JobRunner.Outcome.Parked.class);
        assertThat(((JobRunner.Outcome.Parked) outcome).dependency()).isEqualTo("s3");
        assertThat(stored().attempts()).as("the attempt written RUNNING is taken back").isZero();
        assertThat(events.deadLetters).isEmpty();
    }
}
