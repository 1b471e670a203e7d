package com.fairpix.worker.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.job.InMemoryJobStore;
import com.fairpix.core.job.JobEvent;
import com.fairpix.core.job.JobMessage;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;
import com.fairpix.core.metrics.TenantTags;
import com.fairpix.core.storage.InMemoryObjectStore;
import com.fairpix.core.time.ManualClock;
import com.fairpix.core.usage.UsageLedger;
import com.fairpix.core.usage.UsageTotals;
import com.fairpix.worker.store.ResultWriter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A finished job's usage is handed to the ledger before its event, and again on a redelivery that finds the event unsent. */
class JobRunnerUsageTest {
    final ManualClock clock = new ManualClock(JobRunnerTest.T0);
    final InMemoryJobStore jobs = new InMemoryJobStore();
    final InMemoryObjectStore objects = new InMemoryObjectStore();
    final JobRunnerTest.RecordedEvents events = new JobRunnerTest.RecordedEvents();
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final Ledger ledger = new Ledger();

    /** Counts each job id once, as the Redis ledger does; can be made to fail as Redis away would. */
    static final class Ledger implements UsageLedger {
        final List<JobRecord> calls = new ArrayList<>();
        final Set<String> counted = new HashSet<>();
        int eventsWhenCalled = -1;
        boolean down;
        JobRunnerTest.RecordedEvents events;

        @Override
        public boolean record(JobRecord finished) {
            if (down) throw new redis.clients.jedis.exceptions.JedisConnectionException("down");
            calls.add(finished);
            eventsWhenCalled = events.events.size();
            return counted.add(finished.id());
        }

        @Override public List<Day> days(String tenant, LocalDate from, LocalDate to) { return List.of(); }
        @Override public UsageTotals window(String tenant, Instant from, Instant to) { return UsageTotals.NONE; }
        @Override public void export(LocalDate from, LocalDate to, String tenant, RowSink sink) {}
    }

    @BeforeAll
    static void image() throws IOException {
        JobRunnerTest.image();
    }

    JobRunner runner() {
        ledger.events = events;
        return new JobRunner(jobs, new ResultWriter(objects, 1 << 20), JobRunnerTest.pipeline, events,
                meters, new TenantTags(meters, 10, clock::nanoTime), clock, JobRunnerTest.MAX_ATTEMPTS, JobRunnerTest.BACKOFF).recordUsageIn(ledger);
    }

    JobMessage queued(byte[] original) {
        objects.put(JobRunnerTest.ORIGINAL, original, "image/jpeg");
        JobRecord job = new JobRecord("j1", "acme", JobState.QUEUED, "cpu", JobRunnerTest.T0, null, null, null,
                new JobRecord.Original(JobRunnerTest.ORIGINAL, "jpeg", original.length, "x", 64, 48), JobRunnerTest.THUMB, Map.of(), null, 0);
        jobs.create(job);
        return new JobMessage(JobMessage.SCHEMA_VERSION, job.id(), job.tenant(), job.pool(), job.original(), job.spec(), 1, JobRunnerTest.T0);
    }

    @Test
    void aDoneJobIsCountedWithItsFinalRecordBeforeItsEvent() throws Exception {
        JobMessage m = queued(JobRunnerTest.jpeg);

        assertThat(runner().run(m, 1, JobRunnerTest.T0)).isEqualTo(new JobRunner.Outcome.Finished(true));

        assertThat(ledger.calls).hasSize(1);
        JobRecord counted = ledger.calls.get(0);
        assertThat(counted.state()).isEqualTo(JobState.DONE);
        assertThat(counted.finishedAt()).isNotNull();
        assertThat(UsageTotals.of(counted).bytesIn()).isEqualTo(JobRunnerTest.jpeg.length);
        assertThat(UsageTotals.of(counted).outputPixels()).as("64x48 fitted in 16x16").isEqualTo(16 * 12);
        assertThat(UsageTotals.of(counted).bytesOut()).isEqualTo(counted.results().get("thumb").size()).isPositive();
        assertThat(counted.usage()).as("the image work's CPU, measured on the thread that ran it").isNotNull();
        assertThat(counted.usage().cpuMillis()).isNotNegative();
        assertThat(counted.usage().peakRssBytes()).as("not measurable per job in one JVM").isZero();
        assertThat(meters.get(com.fairpix.core.metrics.MetricNames.TENANT_JOB_CPU).tag("tenant", "acme").counter().count())
                .as("the tenant's CPU seconds").isEqualTo(counted.usage().cpuMillis() / 1000.0);
        assertThat(meters.find(com.fairpix.core.metrics.MetricNames.JOB_PEAK_RSS).summary()).as("no peak memory in-process").isNull();
        assertThat(jobs.get("acme", "j1").orElseThrow().usage()).as("kept on the record").isEqualTo(counted.usage());
        assertThat(ledger.eventsWhenCalled).as("counted before the event went out").isZero();
        assertThat(events.events).extracting(JobEvent::state).containsExactly(JobState.DONE);
    }

    @Test
    void aJobsMeasuredCpuAndPeakMemoryGoIntoItsTenantsMetrics() throws Exception {
        JobMessage m = queued(JobRunnerTest.jpeg);
        // As a processor reports a job: its CPU time and peak RSS over the job.
        com.fairpix.worker.process.ImageProcessor measuredElsewhere = (jobId, source, spec, assets) ->
                new com.fairpix.worker.process.ImageProcessor.Processed(JobRunnerTest.pipeline.process(jobId, source, spec, assets).outputs(),
                        new JobRecord.Usage(120, 50L << 20));
        JobRunner runner = new JobRunner(jobs, new ResultWriter(objects, 1 << 20), measuredElsewhere, events,
                meters, new TenantTags(meters, 10, clock::nanoTime), clock, JobRunnerTest.MAX_ATTEMPTS, JobRunnerTest.BACKOFF);

        assertThat(runner.run(m, 1, JobRunnerTest.T0)).isEqualTo(new JobRunner.Outcome.Finished(true));
        assertThat(runner.run(queuedAgain(JobRunnerTest.jpeg), 1, JobRunnerTest.T0)).isEqualTo(new JobRunner.Outcome.Finished(true));

        assertThat(jobs.get("acme", "j1").orElseThrow().usage()).isEqualTo(new JobRecord.Usage(120, 50L << 20));
        assertThat(meters.get(com.fairpix.core.metrics.MetricNames.TENANT_JOB_CPU).tag("tenant", "acme").counter().count())
                .as("two jobs of 120 ms").isEqualTo(0.24, org.assertj.core.api.Assertions.within(1e-9));
        var rss = meters.get(com.fairpix.core.metrics.MetricNames.JOB_PEAK_RSS).tag("tenant", "acme").summary();
        assertThat(rss.count()).isEqualTo(2);
        assertThat(rss.max()).isEqualTo(50L << 20);
    }

    @Test
    void cpuPastTheEstimatesMarginIsReportedAsTokensOwedAndWithinItNothingIs() throws Exception {
        // Charged 1 token; measured 1,000 ms = 200 tokens (5 ms each): 199 owed. Then 7 ms = 1.4 tokens,
        // within 1.3 × 1 + 2: nothing.
        long[] cpuMillis = {1000};
        com.fairpix.worker.process.ImageProcessor measuredElsewhere = (jobId, source, spec, assets) ->
                new com.fairpix.worker.process.ImageProcessor.Processed(JobRunnerTest.pipeline.process(jobId, source, spec, assets).outputs(),
                        new JobRecord.Usage(cpuMillis[0], 0));
        List<Double> reported = new ArrayList<>();
        JobRunner runner = new JobRunner(jobs, new ResultWriter(objects, 1 << 20), measuredElsewhere, events,
                meters, new TenantTags(meters, 10, clock::nanoTime), clock, JobRunnerTest.MAX_ATTEMPTS, JobRunnerTest.BACKOFF)
                .reportOverrunsTo(reported::add);

        assertThat(runner.run(queued(JobRunnerTest.jpeg), 1, JobRunnerTest.T0)).isEqualTo(new JobRunner.Outcome.Finished(true));
        cpuMillis[0] = 7;
        assertThat(runner.run(queuedAgain(JobRunnerTest.jpeg), 1, JobRunnerTest.T0)).isEqualTo(new JobRunner.Outcome.Finished(true));

        assertThat(reported).containsExactly(199.0);
    }

    /** A second job of the same tenant, j2. */
    JobMessage queuedAgain(byte[] original) {
        JobRecord job = new JobRecord("j2", "acme", JobState.QUEUED, "cpu", JobRunnerTest.T0, null, null, null,
                new JobRecord.Original(JobRunnerTest.ORIGINAL, "jpeg", original.length, "x", 64, 48), JobRunnerTest.THUMB, Map.of(), null, 0);
        jobs.create(job);
        return new JobMessage(JobMessage.SCHEMA_VERSION, job.id(), job.tenant(), job.pool(), job.original(), job.spec(), 1, JobRunnerTest.T0);
    }

    @Test
    void aFailedJobIsCountedOnce() throws Exception {
        JobMessage m = queued("not an image".getBytes());

        assertThat(runner().run(m, 1, JobRunnerTest.T0)).isEqualTo(new JobRunner.Outcome.Finished(true));

        assertThat(ledger.calls).extracting(JobRecord::state).containsExactly(JobState.FAILED);
        assertThat(ledger.counted).containsExactly("j1");
    }

    @Test
    void aCountLostToAnOutageIsMadeWhenTheJobIsRedeliveredAndTheEventStillGoesOutOnce() throws Exception {
        JobMessage m = queued(JobRunnerTest.jpeg);
        ledger.down = true;

        JobRunner.Outcome first = runner().run(m, 1, JobRunnerTest.T0);

        assertThat(first).as("Redis out: parked, no attempt spent (issue 34)").isInstanceOf(JobRunner.Outcome.Parked.class);
        assertThat(jobs.get("acme", "j1").orElseThrow().state()).isEqualTo(JobState.DONE);
        assertThat(events.events).as("no event before the job is counted").isEmpty();

        ledger.down = false;
        assertThat(runner().run(m, 2, JobRunnerTest.T0)).isEqualTo(new JobRunner.Outcome.Finished(false));
        assertThat(runner().run(m, 1, JobRunnerTest.T0)).isEqualTo(new JobRunner.Outcome.Finished(false));

        assertThat(ledger.counted).containsExactly("j1");
        assertThat(ledger.calls).hasSize(1);
        assertThat(events.events).extracting(JobEvent::state).containsExactly(JobState.DONE);
    }
}
