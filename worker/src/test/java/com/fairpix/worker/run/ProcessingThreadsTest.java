package com.fairpix.worker.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.ThreadStates;
import com.fairpix.core.job.JobMessage;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.time.ManualClock;
import com.fairpix.worker.consume.Delivery;
import com.fairpix.worker.consume.JobConsumer;
import com.fairpix.worker.schedule.FifoScheduler;
import com.fairpix.worker.schedule.JobScheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ProcessingThreadsTest {
    private static final TopicPartition P0 = new TopicPartition("jobs", 0);
    private static final JobSpec SPEC = JobSpec.parse("{\"variants\":{\"t\":[{\"op\":\"encode\",\"format\":\"jpeg\"}]}}");
    /** The threads' nanosecond clock: it moves only when a test moves it. */
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T00:00:00Z"));

    /** What the threads reported, in order. */
    static final class Recorder implements JobConsumer.Feedback {
        final List<String> events = new CopyOnWriteArrayList<>();
        boolean parks = true;

        private synchronized void record(String event) {
            events.add(event);
            notifyAll();
        }

        /** Waits (at most 10 s) until {@code event} is reported; false if it never was. */
        synchronized boolean await(String event) throws InterruptedException {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!events.contains(event)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return false;
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return true;
        }

        @Override
        public void taken(Delivery d) {
            record("taken " + d.offset());
        }

        @Override
        public boolean park(Delivery d) {
            record("park " + d.offset());
            return parks;
        }

        @Override
        public void completed(Delivery d, boolean commit) {
            record((commit ? "commit " : "redeliver ") + d.offset());
        }

        @Override
        public void retryLater(JobScheduler.Item<Delivery> item, Duration delay, boolean countsAsAttempt) {
            record("retry " + item.payload().offset() + " in " + delay.toMillis() + " ms" + (countsAsAttempt ? "" : " (no attempt)"));
        }
    }

    private static JobScheduler.Item<Delivery> item(String tenant, long offset) {
        JobMessage m = new JobMessage(JobMessage.SCHEMA_VERSION, "job-" + offset, tenant, "cpu",
                new com.fairpix.core.job.JobRecord.Original("k", "jpeg", 1, "0", 1, 1), SPEC, 1.0, Instant.EPOCH);
        return new JobScheduler.Item<>(tenant, 1.0, new Delivery(P0, offset, m, 1, Instant.EPOCH, 100));
    }

    private ProcessingThreads threads(ProcessingThreads.Runner runner, Predicate<String> held, Recorder sink, List<String> served) {
        return new ProcessingThreads(new FifoScheduler<>(), runner, held, sink, (tenant, cost, seconds) -> served.add(tenant), () -> false, 1, 0, 0,
                clock::nanoTime);
    }

    @Test
    void eachOutcomeIsReportedAndOnlyJobsThatRanAreChargedToTheirTenant() {
        Recorder sink = new Recorder();
        List<String> served = new CopyOnWriteArrayList<>();
        ProcessingThreads p = threads((m, attempt, at, slot) -> switch (m.jobId()) {
            case "job-1" -> new JobRunner.Outcome.Finished(true);
            case "job-2" -> new JobRunner.Outcome.Finished(false);
            case "job-3" -> new JobRunner.Outcome.RetryAfter(Duration.ofMillis(500), false);
            default -> new JobRunner.Outcome.Redeliver();
        }, t -> false, sink, served);
        for (long o = 1; o <= 4; o++) assertThat(p.runOne(item("a", o))).isTrue();
        assertThat(sink.events).containsExactly("taken 1", "commit 1", "taken 2", "commit 2", "taken 3", "retry 3 in 500 ms (no attempt)",
                "taken 4", "redeliver 4");
        assertThat(served).as("the skipped job (2) and the ones that did not finish are not service").containsExactly("a");
        assertThat(p.running()).isZero();
    }

    @Test
    void aJobThatThrowsAnErrorIsRedeliveredAndTheThreadGoesOn() throws Exception {
        Recorder sink = new Recorder();
        FifoScheduler<Delivery> scheduler = new FifoScheduler<>();
        ProcessingThreads p = new ProcessingThreads(scheduler, (m, attempt, at, slot) -> {
            if (m.jobId().equals("job-1")) throw new OutOfMemoryError("test: a job too large for the heap");
            if (m.jobId().equals("job-2")) throw new IllegalStateException("test: a bug");
            return new JobRunner.Outcome.Finished(true);
        }, t -> false, sink, (t, c, s) -> {}, () -> false, 1, 0, 0, clock::nanoTime);
        p.start();
        try {
            for (long o = 1; o <= 3; o++) scheduler.add(item("a", o));
            assertThat(sink.await("commit 3")).isTrue();
            assertThat(sink.events).containsSubsequence("redeliver 1", "redeliver 2", "commit 3");
            assertThat(p.alive()).as("the one processing thread survived both").isEqualTo(1);
        } finally {
            p.stop(clock.nanoTime() + 1_000_000_000L);
        }
    }

    @Test
    void aHeldTenantsJobIsParkedAndCommittedWithoutRunningUnlessParkingFails() {
        Recorder sink = new Recorder();
        List<String> ran = new CopyOnWriteArrayList<>();
        ProcessingThreads p = threads((m, attempt, at, slot) -> {
            ran.add(m.jobId());
            return new JobRunner.Outcome.Finished(true);
        }, t -> t.equals("suspended"), sink, new CopyOnWriteArrayList<>());
        p.runOne(item("suspended", 1));
        sink.parks = false; // Redis away: the job runs rather than being dropped
        p.runOne(item("suspended", 2));
        assertThat(sink.events).containsExactly("taken 1", "park 1", "commit 1", "taken 2", "park 2", "commit 2");
        assertThat(ran).containsExactly("job-2");
    }

    @Test
    void aStoppingWorkerHandsATakenJobBackUncommitted() {
        Recorder sink = new Recorder();
        List<String> ran = new CopyOnWriteArrayList<>();
        ProcessingThreads p = threads((m, attempt, at, slot) -> {
            ran.add(m.jobId());
            return new JobRunner.Outcome.Finished(true);
        }, t -> false, sink, new CopyOnWriteArrayList<>());
        p.stop(clock.nanoTime());
        p.runOne(item("a", 1));
        assertThat(sink.events).containsExactly("taken 1");
        assertThat(ran).isEmpty();
    }

    @Test
    void aJobStuckInOneStepIsFailedItsSlotFreedAndItsThreadReplacedAndItsLateOutcomeDropped() throws Exception {
        Recorder sink = new Recorder();
        FifoScheduler<Delivery> scheduler = new FifoScheduler<>();
        CountDownLatch stuck = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread[] stuckThread = new Thread[1];
        List<String> abandoned = new CopyOnWriteArrayList<>();
        List<String> served = new CopyOnWriteArrayList<>();
        ProcessingThreads p = new ProcessingThreads(scheduler, (m, attempt, at, slot) -> {
            if (m.jobId().equals("job-1")) {
                stuckThread[0] = Thread.currentThread();
                stuck.countDown();
                // A native call that ignores interrupts and the time limit.
                while (release.getCount() > 0) {
                    try {
                        release.await();
                    } catch (InterruptedException ignored) {
                        // keeps going, as code in native OpenCV would
                    }
                }
            }
            return new JobRunner.Outcome.Finished(true);
        }, t -> false, sink, (tenant, cost, seconds) -> served.add(tenant), () -> false, 1, 0, 0, clock::nanoTime)
                .abandonAfter(Duration.ofMillis(300), (m, ran) -> abandoned.add(m.jobId() + " after >= " + (ran.toMillis() >= 300)));
        p.start();
        try {
            scheduler.add(item("stuck", 1));
            scheduler.add(item("other", 2));
            assertThat(stuck.await(10, TimeUnit.SECONDS)).isTrue();
            clock.advance(Duration.ofMillis(301)); // the watchdog's next look finds it past the limit
            assertThat(sink.await("commit 2")).isTrue();
            assertThat(abandoned).containsExactly("job-1 after >= true");
            assertThat(sink.events).as("the stuck job's offset is released when it is failed; the next job runs on the new thread")
                    .containsSubsequence("taken 1", "commit 1", "taken 2", "commit 2");
            assertThat(p.abandoned()).isEqualTo(1);
            assertThat(p.alive()).as("the stuck thread does not count, its replacement does").isEqualTo(1);
            assertThat(p.running()).as("only the stuck job's thread is busy, and it is not counted").isZero();

            release.countDown(); // the native call returns at last
            stuckThread[0].join(10_000); // and the stuck thread ends, its late outcome handled
            assertThat(stuckThread[0].isAlive()).isFalse();
            assertThat(sink.events.stream().filter(e -> e.equals("commit 1")).count()).as("its late outcome is dropped").isEqualTo(1);
            assertThat(served).as("only the job that finished is service").containsExactly("other");
            scheduler.add(item("other", 3));
            assertThat(sink.await("commit 3")).isTrue();
            assertThat(sink.events).contains("commit 3");
            assertThat(p.alive()).isEqualTo(1);
        } finally {
            release.countDown();
            p.stop(clock.nanoTime() + 1_000_000_000L);
        }
    }

    @Test
    void aJobWhoseWritesRunElsewhereFreesItsThreadAndIsSettledWhenTheWritesEnd() {
        Recorder sink = new Recorder();
        List<String> served = new CopyOnWriteArrayList<>();
        java.util.Map<String, java.util.concurrent.CompletableFuture<JobRunner.Outcome>> writes = new java.util.concurrent.ConcurrentHashMap<>();
        ProcessingThreads p = threads((m, attempt, at, slot) -> new JobRunner.Outcome.Finishing(
                writes.computeIfAbsent(m.jobId(), k -> new java.util.concurrent.CompletableFuture<>())), t -> false, sink, served);
        assertThat(p.runOne(item("a", 1))).isTrue();
        assertThat(p.runOne(item("a", 2))).as("the thread takes the next job while the first one's writes run").isTrue();
        assertThat(sink.events).as("no offset is settled before its job's writes end").containsExactly("taken 1", "taken 2");
        assertThat(served).as("no job is service before it is done").isEmpty();
        assertThat(p.running()).isZero();
        assertThat(p.finishing()).isEqualTo(2);

        writes.get("job-2").complete(new JobRunner.Outcome.RetryAfter(Duration.ofMillis(250), true));
        writes.get("job-1").complete(new JobRunner.Outcome.Finished(true));
        assertThat(sink.events).containsExactly("taken 1", "taken 2", "retry 2 in 250 ms", "commit 1");
        assertThat(served).as("only the job whose writes ended it is service; the retried one is charged when it is done").containsExactly("a");
        assertThat(p.finishing()).isZero();
    }

    @Test
    void stopWaitsForTheWritesOfProcessedJobs() throws Exception {
        Recorder sink = new Recorder();
        java.util.concurrent.CompletableFuture<JobRunner.Outcome> write = new java.util.concurrent.CompletableFuture<>();
        ProcessingThreads p = threads((m, attempt, at, slot) -> new JobRunner.Outcome.Finishing(write), t -> false, sink, new CopyOnWriteArrayList<>());
        assertThat(p.runOne(item("a", 1))).isTrue();
        Thread stopping = Thread.currentThread();
        Thread.ofPlatform().start(() -> {
            // The write ends only once stop() is waiting for it.
            ThreadStates.awaitTimedWaiting(stopping);
            write.complete(new JobRunner.Outcome.Finished(true));
        });
        long t0 = System.nanoTime();
        p.stop(clock.nanoTime() + 10_000_000_000L);
        assertThat(sink.events).as("stop returned only after the write settled the offset").containsExactly("taken 1", "commit 1");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aJobWritingElsewhereLeavesItsSlotToAnotherTenantButKeepsItsTenantsCapUntilItsWritesEnd() {
        // One shared slot; every tenant capped at one running job.
        com.fairpix.worker.schedule.FairScheduler<Delivery> fair = new com.fairpix.worker.schedule.FairScheduler<>(t -> 1.0, t -> 1, 1, 0);
        Recorder sink = new Recorder();
        java.util.Map<String, java.util.concurrent.CompletableFuture<JobRunner.Outcome>> writes = new java.util.concurrent.ConcurrentHashMap<>();
        ProcessingThreads p = new ProcessingThreads(fair, (m, attempt, at, slot) -> new JobRunner.Outcome.Finishing(
                writes.computeIfAbsent(m.jobId(), k -> new java.util.concurrent.CompletableFuture<>())), t -> false, sink, (t, c, s) -> {}, () -> false, 1, 0, 0,
                clock::nanoTime);
        fair.add(item("a", 1));
        fair.add(item("a", 2));
        fair.add(item("b", 3));

        assertThat(p.runOne(fair.poll())).isTrue(); // a's first job: its writes pending
        JobScheduler.Item<Delivery> next = fair.poll();
        assertThat(next).as("the slot is free while a's writes run").isNotNull();
        assertThat(next.payload().offset()).as("b's job, not a's second: a is at its cap").isEqualTo(3);
        assertThat(p.runOne(next)).isTrue();
        writes.get("job-3").complete(new JobRunner.Outcome.Finished(true));
        assertThat(fair.poll()).as("a's first job still writing: its cap holds").isNull();

        writes.get("job-1").complete(new JobRunner.Outcome.Finished(true));
        JobScheduler.Item<Delivery> last = fair.poll();
        assertThat(last.payload().offset()).isEqualTo(2);
        assertThat(sink.events).containsExactly("taken 1", "taken 3", "commit 3", "commit 1");
    }
}
