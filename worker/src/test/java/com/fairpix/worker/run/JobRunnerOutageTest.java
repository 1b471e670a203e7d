package com.fairpix.worker.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.error.RetryLater;
import com.fairpix.core.job.InMemoryJobStore;
import com.fairpix.core.job.JobEvent;
import com.fairpix.core.job.JobMessage;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.metrics.MetricNames;
import com.fairpix.core.metrics.TenantTags;
import com.fairpix.core.storage.InMemoryObjectStore;
import com.fairpix.core.storage.ObjectStore;
import com.fairpix.core.time.ManualClock;
import com.fairpix.worker.store.ResultWriter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Issue 34: an outage of Redis, Kafka or S3 never costs a job an attempt. On small fakes of our own
 * ports (a job store whose writes time out as a hung Redis's do, an event publisher Kafka does not
 * acknowledge, an object store answering 503), the job is parked again and again past
 * {@code maxAttempts}, then ends DONE with one attempt once the dependency answers; a tenant's own
 * S3 4xx still fails its job.
 */
class JobRunnerOutageTest {
    static final int MAX_ATTEMPTS = JobRunnerTest.MAX_ATTEMPTS;
    /** More outages in a row than the job has attempts: without the rule the job would be FAILED. */
    static final int OUTAGES = MAX_ATTEMPTS + 3;

    final ManualClock clock = new ManualClock(JobRunnerTest.T0);
    final InMemoryJobStore memory = new InMemoryJobStore();
    final InMemoryObjectStore objects = new InMemoryObjectStore();
    final JobRunnerTest.RecordedEvents events = new JobRunnerTest.RecordedEvents();
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    /** A job store whose calls of one kind time out while {@code hung} says so, as Jedis's do on a SIGSTOPped Redis. */
    static final class HungRedis implements JobStore {
        final JobStore delegate;
        final AtomicInteger hungTransitionsToDone = new AtomicInteger();
        volatile boolean hungReads;

        HungRedis(JobStore delegate) {
            this.delegate = delegate;
        }

        static JedisConnectionException timeout() {
            return new JedisConnectionException(new SocketTimeoutException("Read timed out"));
        }

        @Override public void create(JobRecord job) { delegate.create(job); }

        @Override
        public Optional<JobRecord> get(String tenant, String jobId) {
            if (hungReads) throw timeout();
            return delegate.get(tenant, jobId);
        }

        @Override public Optional<String> tenantOf(String jobId) { return delegate.tenantOf(jobId); }

        @Override
        public Transition transition(JobRecord next, Set<JobState> from) {
            if (next.state() == JobState.DONE && hungTransitionsToDone.getAndDecrement() > 0) throw timeout();
            return delegate.transition(next, from);
        }

        @Override public void markEventSent(JobRecord job) { delegate.markEventSent(job); }
        @Override public boolean eventSent(JobRecord job) { return delegate.eventSent(job); }
        @Override public Page list(String tenant, String cursor, int limit, long maxBytes) { return delegate.list(tenant, cursor, limit, maxBytes); }
    }

    JobRunner runner(JobStore jobs, ObjectStore store, com.fairpix.worker.notify.EventPublisher publisher) throws java.io.IOException {
        return new JobRunner(jobs, new ResultWriter(store, 1 << 20), JobRunnerTest.pipeline(), publisher, meters, new TenantTags(meters, 10, clock::nanoTime),
                clock, MAX_ATTEMPTS, JobRunnerTest.BACKOFF);
    }

    JobMessage queued() throws java.io.IOException {
        objects.put(JobRunnerTest.ORIGINAL, JobRunnerTest.jpeg(), "image/jpeg");
        JobRecord job = new JobRecord("j1", "acme", JobState.QUEUED, "cpu", JobRunnerTest.T0, null, null, null,
                new JobRecord.Original(JobRunnerTest.ORIGINAL, "jpeg", JobRunnerTest.jpeg().length, "x", 64, 48), JobRunnerTest.THUMB, Map.of(), null, 0);
        memory.create(job);
        return new JobMessage(JobMessage.SCHEMA_VERSION, job.id(), job.tenant(), job.pool(), job.original(), job.spec(), 1, JobRunnerTest.T0);
    }

    JobRecord stored() {
        return memory.get("acme", "j1").orElseThrow();
    }

    @Test
    void aRedisThatTimesOutOnTheDoneWriteParksTheJobAsOftenAsItTakesAndItEndsDoneWithOneAttempt() throws Exception {
        // The measured failure: the RUNNING write went through, then Redis hung; each DONE write timed out.
        HungRedis redis = new HungRedis(memory);
        redis.hungTransitionsToDone.set(OUTAGES);
        JobMessage m = queued();
        JobRunner runner = runner(redis, objects, events);

        for (int i = 0; i < OUTAGES; i++) {
            JobRunner.Outcome o = runner.run(m, 1, JobRunnerTest.T0);
            assertThat(o).as("try %d", i + 1).isInstanceOf(JobRunner.Outcome.Parked.class);
            assertThat(((JobRunner.Outcome.Parked) o).dependency()).isEqualTo("redis");
            assertThat(stored().state()).isEqualTo(JobState.RUNNING);
            assertThat(stored().attempts()).as("the record's count after try %d", i + 1).isEqualTo(1);
        }
        assertThat(runner.run(m, 1, JobRunnerTest.T0)).isEqualTo(new JobRunner.Outcome.Finished(true));

        assertThat(stored().state()).isEqualTo(JobState.DONE);
        assertThat(stored().attempts()).isEqualTo(1);
        assertThat(events.deadLetters).isEmpty();
        assertThat(events.events).extracting(JobEvent::state).containsExactly(JobState.DONE);
        assertThat(meters.counter(MetricNames.JOBS_PARKED, "dependency", "redis").count()).isEqualTo(OUTAGES);
    }

    @Test
    void aRedisThatCannotBeReadParksTheJobBeforeItStarts() throws Exception {
        HungRedis redis = new HungRedis(memory);
        JobMessage m = queued();
        JobRunner runner = runner(redis, objects, events);
        redis.hungReads = true;

        for (int i = 0; i < OUTAGES; i++) assertThat(runner.run(m, 1, JobRunnerTest.T0)).isInstanceOf(JobRunner.Outcome.Parked.class);
        redis.hungReads = false;

        assertThat(runner.run(m, 1, JobRunnerTest.T0)).isEqualTo(new JobRunner.Outcome.Finished(true));
        assertThat(stored().attempts()).isEqualTo(1);
    }

    @Test
    void aKafkaThatDoesNotAcknowledgeTheEventParksTheJobAndItsEventGoesOutOnceItAnswers() throws Exception {
        AtomicInteger unacknowledged = new AtomicInteger(OUTAGES);
        List<JobEvent> published = new ArrayList<>();
        com.fairpix.worker.notify.EventPublisher kafka = new com.fairpix.worker.notify.EventPublisher() {
            @Override
            public void publish(JobEvent event) {
                if (unacknowledged.getAndDecrement() > 0) {
                    throw new RetryLater(RetryLater.Kind.DEPENDENCY, "kafka", "cannot publish to fairpix.events", 0,
                            new java.util.concurrent.TimeoutException());
                }
                published.add(event);
            }

            @Override
            public void deadLetter(String tenant, byte[] message, String reason, String detail) {
                events.deadLetter(tenant, message, reason, detail);
            }
        };
        JobMessage m = queued();
        JobRunner runner = runner(memory, objects, kafka);

        for (int i = 0; i < OUTAGES; i++) {
            JobRunner.Outcome o = runner.run(m, 1, JobRunnerTest.T0);
            assertThat(o).as("try %d", i + 1).isInstanceOf(JobRunner.Outcome.Parked.class);
            assertThat(((JobRunner.Outcome.Parked) o).dependency()).isEqualTo("kafka");
        }
        // The DONE write went through on the first try: the next one finds the job DONE and sends its event.
        assertThat(runner.run(m, 1, JobRunnerTest.T0)).isEqualTo(new JobRunner.Outcome.Finished(false));

        assertThat(stored().state()).isEqualTo(JobState.DONE);
        assertThat(stored().attempts()).isEqualTo(1);
        assertThat(published).extracting(JobEvent::state).containsExactly(JobState.DONE);
        assertThat(memory.eventSent(stored())).isTrue();
        assertThat(events.deadLetters).isEmpty();
    }

    @Test
    void anS3ThatAnswers503ParksTheJobButATenantsOwnS3RefusalFailsIt() throws Exception {
        S3Answers s3 = new S3Answers(objects);
        JobMessage m = queued();
        JobRunner runner = runner(memory, s3, events);
        s3.status = 503;

        for (int i = 0; i < OUTAGES; i++) {
            JobRunner.Outcome o = runner.run(m, 1, JobRunnerTest.T0);
            assertThat(o).isInstanceOf(JobRunner.Outcome.Parked.class);
            assertThat(((JobRunner.Outcome.Parked) o).dependency()).isEqualTo("s3");
        }
        assertThat(stored().attempts()).as("given back while S3 is out and Redis answers").isZero();

        s3.status = 400; // this job's key refused: its own fault (issue 33)
        assertThat(runner.run(m, 1, JobRunnerTest.T0)).isEqualTo(new JobRunner.Outcome.Finished(true));
        assertThat(stored().state()).isEqualTo(JobState.FAILED);
        assertThat(stored().error().reason()).isEqualTo("request-refused");
    }

    @Test
    void theJobsOwnTransientFailuresStillCountAndEndIt() throws Exception {
        // No original: the job's own input is missing. Outages before do not change what it may spend.
        HungRedis redis = new HungRedis(memory);
        JobMessage m = queued();
        memory.create(memory.get("acme", "j1").orElseThrow());
        InMemoryObjectStore empty = new InMemoryObjectStore();
        JobRunner runner = runner(redis, empty, events);
        redis.hungReads = true;
        for (int i = 0; i < OUTAGES; i++) assertThat(runner.run(m, 1, JobRunnerTest.T0)).isInstanceOf(JobRunner.Outcome.Parked.class);
        redis.hungReads = false;

        assertThat(runner.run(m, 1, JobRunnerTest.T0)).isInstanceOf(JobRunner.Outcome.RetryAfter.class);
        assertThat(runner.run(m, 2, JobRunnerTest.T0)).isInstanceOf(JobRunner.Outcome.RetryAfter.class);
        assertThat(runner.run(m, 3, JobRunnerTest.T0)).isEqualTo(new JobRunner.Outcome.Finished(true));
        assertThat(stored().state()).isEqualTo(JobState.FAILED);
        assertThat(stored().error().reason()).isEqualTo("attempts-exhausted");
        assertThat(stored().attempts()).isEqualTo(MAX_ATTEMPTS);
    }

    @Test
    void theBackOffGrowsWithEachOutageInARowIsJitteredAndBounded() throws Exception {
        HungRedis redis = new HungRedis(memory);
        JobMessage m = queued();
        JobRunner runner = runner(redis, objects, events);
        redis.hungReads = true;
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < 40; i++) delays.add(((JobRunner.Outcome.Parked) runner.run(m, 1, JobRunnerTest.T0)).delay().toMillis());

        long first = JobRunner.OUTAGE_BACKOFF_FIRST.toMillis();
        long max = JobRunner.OUTAGE_BACKOFF_MAX.toMillis();
        assertThat(delays.get(0)).isBetween(first / 2, first * 3 / 2);
        assertThat(delays).allSatisfy(d -> assertThat(d).isBetween(first / 2, max * 3 / 2));
        List<Long> late = delays.subList(10, 40);
        assertThat(late).allSatisfy(d -> assertThat(d).isGreaterThanOrEqualTo(max / 2));
        assertThat(late.stream().distinct().count()).as("jittered, not one wave").isGreaterThan(5);
    }

    /** An object store whose data calls answer with {@code status} while it is set. */
    static final class S3Answers implements ObjectStore {
        final ObjectStore delegate;
        volatile int status;

        S3Answers(ObjectStore delegate) {
            this.delegate = delegate;
        }

        private void answer() {
            if (status != 0) {
                throw (S3Exception) S3Exception.builder().statusCode(status)
                        .awsErrorDetails(AwsErrorDetails.builder().errorCode(status >= 500 ? "ServiceUnavailable" : "InvalidArgument").build()).build();
            }
        }

        @Override public void put(String key, byte[] data, String contentType) { answer(); delegate.put(key, data, contentType); }
        @Override public void put(String key, Path file, long size, String contentType) { answer(); delegate.put(key, file, size, contentType); }
        @Override public byte[] get(String key, long maxBytes) { answer(); return delegate.get(key, maxBytes); }
        @Override public InputStream open(String key) { answer(); return delegate.open(key); }
        @Override public void ensureBucket() { delegate.ensureBucket(); }
        @Override public boolean ping() { return status == 0; }
        @Override public void close() { }
    }
}
