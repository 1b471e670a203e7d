package com.fairpix.worker.consume;

import com.fairpix.core.job.JobMessage;
import com.fairpix.core.json.Json;
import com.fairpix.worker.run.JobRunner;
import com.fairpix.worker.notify.EventPublisher;
import com.fairpix.worker.schedule.JobScheduler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's consumption loop. One thread owns the KafkaConsumer and only polls, buffers and
 * commits: jobs go into the {@link JobScheduler} and run on separate processing threads, so a long
 * job never stalls polling (nor expels the worker from its group). Offsets are committed per
 * partition only up to the first unfinished job, so a crash loses nothing: unfinished jobs are
 * redelivered, and {@link JobRunner} skips the ones already done.
 *
 * <p>What it holds is bounded by {@link ReadAhead}: by default per tenant and in all, reading past
 * a tenant whose share of the buffer is full and fetching its records again ({@link CatchUp}) once
 * it has room, so no tenant's backlog stalls a partition for the other tenants on it
 * (docs/isolation.md). A transient failure is retried after a backoff from a timer, so the
 * processing thread goes on with other tenants' work meanwhile.
 */
public final class JobConsumer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JobConsumer.class);
    /** Between polls while a partition is paused: what a new job may wait extra before it is seen. */
    private static final long PAUSED_POLL_INTERVAL_NANOS = 1_000_000;
    /** Between two asynchronous offset commits. */
    private static final long COMMIT_INTERVAL_NANOS = 50_000_000L;
    /** The poll timeout while a tenant is held back (its catch-ups run between polls). */
    private static final Duration HOLDING_POLL_TIMEOUT = Duration.ofMillis(5);
    /** Between polls while every partition is paused (buffer full, a dependency down, stopping). */
    private static final long ALL_PAUSED_POLL_INTERVAL_NANOS = 10_000_000;

    /**
     * A buffered job with where it came from and how often this worker has tried it.
     *
     * @param enqueuedAt the Kafka record's timestamp: when the ingest queued the job
     * @param bytes      the record's value size, bytes (what it costs the read-ahead)
     */
    public record Delivery(TopicPartition partition, long offset, JobMessage message, int attempt, java.time.Instant enqueuedAt, int bytes) {}

    private record Completion(TopicPartition partition, long offset, boolean commit) {}

    /** What the catch-up thread fetched for one hold. */
    private record CaughtUp(ReadAhead.CatchUp plan, List<ConsumerRecord<String, byte[]>> records, CatchUp.Result result) {}

    /** Hears about every finished attempt (metrics, fairness accounting). */
    public interface Listener {
        /** @param seconds processing time; @param estimatedCost cost units */
        void finished(String tenant, double estimatedCost, double seconds);
    }

    private final KafkaConsumer<String, byte[]> consumer;
    private final String topic;
    private final JobScheduler<Delivery> scheduler;
    private final JobRunner runner;
    private final EventPublisher events;
    private final Predicate<String> held;
    private final HeldJobs heldJobs;
    private final Listener listener;
    private volatile java.util.function.BooleanSupplier dependencyDown = () -> false;
    private final ConsumeConfig config;
    private final ReadAhead readAhead;
    private final CatchUp catchUp;
    private final Clock clock;
    private final LongSupplier nanos;
    private final OffsetTracker offsets = new OffsetTracker();
    /** Commits sent and failed; poll thread only. */
    private final CommitLedger ledger = new CommitLedger();
    private final ConcurrentLinkedQueue<Completion> completions = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<CaughtUp> caughtUp = new ConcurrentLinkedQueue<>();
    /** Each owned partition's read position, for the catch-up thread. */
    private final Map<TopicPartition, Long> readPositions = new ConcurrentHashMap<>();
    private Thread catchUpThread;
    private volatile java.util.function.Consumer<String> onReadPast = t -> {};
    private final Set<TopicPartition> owned = ConcurrentHashMap.newKeySet();
    private final Map<TopicPartition, Long> lastRevokedMillis = new ConcurrentHashMap<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final ScheduledThreadPoolExecutor retries = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform().daemon().name("fairpix-retry").unstarted(r));
    private volatile ProcessingThreads processors;
    private volatile boolean stopping;
    private volatile boolean closing;
    private volatile boolean healthy;
    private long lastSweep;
    /** When commitAsync last ran (on the nanosecond clock); poll thread only. */
    private long lastCommit;

    /**
     * @param config             its threads, read-ahead bounds and watchdog
     * @param held               true for a tenant whose jobs must not run now (suspended)
     * @param heldJobs           where such jobs are parked until the tenant is activated
     * @param clock              the wall clock: when partitions were revoked ({@link #lastRevoked})
     * @param nanos              monotonic clock, nanoseconds: commit and sweep intervals, run times, stop deadlines,
     *                           the read-ahead's catch-up waits
     */
    public JobConsumer(Properties consumerProps, String topic, ConsumeConfig config, JobScheduler<Delivery> scheduler, JobRunner runner,
                       EventPublisher events, Predicate<String> held, HeldJobs heldJobs, Listener listener, Clock clock, LongSupplier nanos) {
        this.consumer = new KafkaConsumer<>(consumerProps);
        this.topic = topic;
        this.scheduler = scheduler;
        this.runner = runner;
        this.events = events;
        this.held = held;
        this.heldJobs = heldJobs;
        this.listener = listener;
        this.config = config;
        this.readAhead = new ReadAhead(config.readAhead(), config.limits(), nanos);
        this.clock = clock;
        this.nanos = nanos;
        this.catchUp = new CatchUp(CatchUp.kafka(consumerProps, 100, nanos));
    }

    /**
     * While {@code down} answers true (a dependency's circuit breaker is open), take no job and
     * pause every partition: offsets stay where they are and nothing is lost or failed.
     */
    public JobConsumer dependencyDown(java.util.function.BooleanSupplier down) {
        this.dependencyDown = down;
        return this;
    }

    public void start() {
        // Threads inherit their creator's nice value: start the retry timer here, not lazily from a shared thread.
        retries.prestartAllCoreThreads();
        processors = new ProcessingThreads(scheduler, (m, attempt, at, slot) -> runner.run(m, attempt, at, slot == JobScheduler.Slot.RESERVED), held, new ToPollLoop(), listener, () -> dependencyDown.getAsBoolean(),
                config.sharedThreads(), config.reservedThreads(), config.sharedNice(), nanos);
        processors.abandonAfter(config.abandonAfter(), runner::abandon);
        processors.start();
        Thread.ofPlatform().name("fairpix-poll").start(this::pollLoop);
        catchUpThread = Thread.ofPlatform().name("fairpix-catch-up").start(this::catchUpLoop);
    }

    /** True while the poll loop runs without errors and every processing thread is alive (readiness). */
    public boolean healthy() {
        ProcessingThreads p = processors;
        return healthy && !stopping && (p == null || p.alive() == config.sharedThreads() + config.reservedThreads());
    }

    /** Partitions this worker owns now. */
    public Set<TopicPartition> owned() {
        return Set.copyOf(owned);
    }

    /** When each partition was last taken from this worker (epoch ms); absent if never. */
    public Map<TopicPartition, Long> lastRevoked() {
        return Map.copyOf(lastRevokedMillis);
    }

    public int buffered() {
        return scheduler.size();
    }

    /** What this worker holds in memory, and whom it holds back. */
    public ReadAhead readAhead() {
        return readAhead;
    }

    /** Jobs abandoned by the watchdog so far. */
    public int abandoned() {
        return processors == null ? 0 : processors.abandoned();
    }

    /** Hears of every record read past (its tenant held back): metrics. Called on the poll thread. */
    public JobConsumer onReadPast(java.util.function.Consumer<String> listener) {
        this.onReadPast = listener;
        return this;
    }

    public int running() {
        return processors == null ? 0 : processors.running();
    }

    /** Jobs running on the shared processing threads (not the reserved ones). */
    public int runningShared() {
        return processors == null ? 0 : processors.runningShared();
    }

    /** What the processing threads report, queued for the poll thread (which alone touches the consumer). */
    private final class ToPollLoop implements ProcessingThreads.Sink {
        @Override
        public void taken(Delivery d) {
            unbuffered(d);
        }

        @Override
        public boolean park(Delivery d) {
            return JobConsumer.this.park(d);
        }

        @Override
        public void completed(Delivery d, boolean commit) {
            completions.add(new Completion(d.partition(), d.offset(), commit));
        }

        @Override
        public void retryLater(JobScheduler.Item<Delivery> item, Duration delay, boolean countsAsAttempt) {
            JobConsumer.this.retryLater(item, delay, countsAsAttempt);
        }
    }

    private void retryLater(JobScheduler.Item<Delivery> item, Duration delay, boolean countsAsAttempt) {
        Delivery d = item.payload();
        Delivery again = new Delivery(d.partition(), d.offset(), d.message(), d.attempt() + (countsAsAttempt ? 1 : 0), d.enqueuedAt(), d.bytes());
        retries.schedule(() -> {
            // A partition revoked meanwhile belongs to another worker now, which redelivers the job.
            if (!owned.contains(d.partition()) || stopping) return;
            // A retry goes back in whatever the limits say: it was admitted once and must not be lost.
            readAhead.reserveAnyway(d.partition(), d.message().tenant(), d.bytes(), again.enqueuedAt().toEpochMilli());
            scheduler.add(new JobScheduler.Item<>(item.tenant(), item.cost(), again));
        }, delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void pollLoop() {
        try {
            consumer.subscribe(List.of(topic), new Rebalance());
            Set<TopicPartition> paused = new HashSet<>();
            while (!closing) {
                applyCompletions();
                sweepHeld();
                commitAsync();
                applyBackpressure(paused);
                // kafka-clients 4.4's KIP-848 consumer does not block in poll() while a paused partition has
                // fetched data buffered: it re-queues that data with a wake-up and spins for the whole
                // timeout (KAFKA-21084, open), which took a third of a 2-core worker's CPU in the fairness
                // bench. So while anything is paused, poll without waiting and sleep briefly between polls.
                boolean spinProne = !paused.isEmpty();
                // While a tenant is held back, poll briefly: its catch-up runs between polls, and a tenant whose
                // buffer runs dry must not wait out a long poll for its next jobs.
                Duration timeout = spinProne ? Duration.ZERO : readAhead.holding() ? HOLDING_POLL_TIMEOUT : Duration.ofMillis(100);
                ConsumerRecords<String, byte[]> records = consumer.poll(timeout);
                healthy = true;
                for (ConsumerRecord<String, byte[]> r : records) offer(r);
                publishPositions();
                applyCatchUps();
                if (spinProne && records.isEmpty()) {
                    // With every partition paused no record can come; only our own resume can change that.
                    boolean allPaused = paused.containsAll(consumer.assignment());
                    LockSupport.parkNanos(allPaused ? ALL_PAUSED_POLL_INTERVAL_NANOS : PAUSED_POLL_INTERVAL_NANOS);
                }
            }
        } catch (WakeupException e) {
            // close() woke us up
        } catch (RuntimeException e) {
            healthy = false;
            log.error("poll loop failed", e);
        } finally {
            shutdownConsumer();
            stopped.countDown();
        }
    }

    /**
     * Pauses every partition while stopping or a dependency is down; in PARTITION mode also the
     * partitions with a full buffer. Resumes the rest.
     */
    private void applyBackpressure(Set<TopicPartition> paused) {
        Set<TopicPartition> assigned = consumer.assignment();
        paused.retainAll(assigned);
        boolean all = stopping || dependencyDown.getAsBoolean();
        Set<TopicPartition> wanted = all ? new HashSet<>(assigned) : readAhead.full(assigned, paused);
        Set<TopicPartition> pause = new HashSet<>(wanted);
        pause.removeAll(paused);
        Set<TopicPartition> resume = new HashSet<>(paused);
        resume.removeAll(wanted);
        if (!pause.isEmpty()) {
            consumer.pause(pause);
            paused.addAll(pause);
        }
        if (!resume.isEmpty()) {
            consumer.resume(resume);
            paused.removeAll(resume);
        }
    }

    /** A record from the main cursor: buffered, or read past when its tenant is held back. */
    private void offer(ConsumerRecord<String, byte[]> r) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        String tenant = r.key() == null ? "" : r.key();
        int bytes = r.value() == null ? 0 : r.value().length;
        if (readAhead.offer(tp, r.offset(), tenant, bytes, r.timestamp()) == ReadAhead.Verdict.READ_PAST) {
            offsets.seen(tp, r.offset());
            onReadPast.accept(tenant);
            return;
        }
        accept(r);
    }

    /**
     * The catch-up thread: fetches the records of held-back tenants that have room again (the
     * emptiest first) with its own consumer, so the main poll is never held up by a fetch, and
     * queues them for the poll thread, which alone tracks offsets and moves holds.
     */
    private void catchUpLoop() {
        try {
            while (!closing) {
                if (stopping || dependencyDown.getAsBoolean()) {
                    Thread.sleep(50);
                    continue;
                }
                for (ReadAhead.CatchUp c : readAhead.claimDue(100_000_000L)) caughtUp.add(fetchAgain(c));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            catchUp.close();
        }
    }

    private CaughtUp fetchAgain(ReadAhead.CatchUp c) throws InterruptedException {
        TopicPartition tp = c.partition();
        Long until = readPositions.get(tp);
        List<ConsumerRecord<String, byte[]>> taken = new ArrayList<>();
        if (until == null || !owned.contains(tp)) return new CaughtUp(c, taken, new CatchUp.Result(c.from(), -1, 0, false));
        try {
            CatchUp.Result result = catchUp.run(tp, c.tenant(), c.from(), until, r -> {
                if (!readAhead.tryReserve(tp, c.tenant(), size(r), r.timestamp())) return false;
                taken.add(r);
                return true;
            });
            return new CaughtUp(c, taken, result);
        } catch (RuntimeException e) {
            log.warn("catching up tenant {} on {} from {} failed, will retry: {}", c.tenant(), tp, c.from(), e.toString());
            Thread.sleep(200);
            for (ConsumerRecord<String, byte[]> r : taken) readAhead.released(tp, c.tenant(), size(r), r.timestamp());
            return new CaughtUp(c, List.of(), new CatchUp.Result(c.from(), -1, 0, false));
        }
    }

    /**
     * Poll thread: buffers what the catch-up thread fetched, then moves the holds (in this order, so
     * no commit passes a record that is neither tracked nor held back). A catch-up planned before a
     * rewind or revoke of its partition is dropped.
     */
    private void applyCatchUps() {
        for (CaughtUp c; (c = caughtUp.poll()) != null; ) {
            ReadAhead.CatchUp plan = c.plan();
            TopicPartition tp = plan.partition();
            if (!owned.contains(tp) || readAhead.generation(tp) != plan.generation()) {
                for (ConsumerRecord<String, byte[]> r : c.records()) readAhead.released(tp, plan.tenant(), size(r), r.timestamp());
                readAhead.advanced(tp, plan.tenant(), plan.generation(), plan.from(), -1, 0, false);
                continue;
            }
            for (ConsumerRecord<String, byte[]> r : c.records()) accept(r);
            CatchUp.Result result = c.result();
            // The main cursor may have read on since the fetch: caught up only as far as it has read now.
            boolean caughtUpNow = result.caughtUp() && result.next() >= offsets.position(tp);
            readAhead.advanced(tp, plan.tenant(), plan.generation(), result.next(), result.nextTimestamp(), result.taken(), caughtUpNow);
            log.debug("caught up tenant {} on {} from {} (room {}): {}", plan.tenant(), tp, plan.from(), plan.room(), result);
        }
    }

    /** Publishes each partition's read position to the catch-up thread (the end of its fetches). */
    private void publishPositions() {
        for (TopicPartition tp : owned) {
            long p = offsets.position(tp);
            if (p >= 0) readPositions.put(tp, p);
        }
    }

    private static int size(ConsumerRecord<String, byte[]> r) {
        return r.value() == null ? 0 : r.value().length;
    }

    private void accept(ConsumerRecord<String, byte[]> r) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        offsets.track(tp, r.offset());
        JobMessage message;
        try {
            message = Json.read(r.value(), JobMessage.class);
            if (message.jobId() == null || message.tenant() == null || message.spec() == null || message.original() == null) {
                throw new IllegalArgumentException("missing members");
            }
        } catch (RuntimeException e) {
            readAhead.released(tp, r.key() == null ? "" : r.key(), r.value() == null ? 0 : r.value().length, r.timestamp());
            try {
                events.deadLetter(r.key(), r.value(), "malformed-message", e.getMessage());
                offsets.done(tp, r.offset());
            } catch (RuntimeException dlqDown) {
                log.warn("cannot dead-letter malformed record {}@{}: {}", tp, r.offset(), dlqDown.toString());
            }
            return;
        }
        int bytes = r.value().length;
        Instant enqueuedAt = r.timestamp() >= 0 ? Instant.ofEpochMilli(r.timestamp()) : message.submittedAt();
        if (!message.tenant().equals(r.key()) || r.timestamp() < 0) {
            // Counted under the record's key and timestamp; keep the books under the job's own.
            readAhead.released(tp, r.key() == null ? "" : r.key(), bytes, r.timestamp());
            readAhead.reserveAnyway(tp, message.tenant(), bytes, enqueuedAt.toEpochMilli());
        }
        Delivery delivery = new Delivery(tp, r.offset(), message, 1, enqueuedAt, bytes);
        if (held.test(message.tenant()) && park(delivery)) {
            unbuffered(delivery);
            offsets.done(tp, r.offset());
            return;
        }
        scheduler.add(new JobScheduler.Item<>(message.tenant(), message.schedulingCost(), delivery));
    }

    /** The delivery left the buffer (taken, dropped or parked): its room in the read-ahead is free again. */
    private void unbuffered(Delivery d) {
        readAhead.released(d.partition(), d.message().tenant(), d.bytes(), d.enqueuedAt().toEpochMilli());
    }

    /** Parks a held tenant's job in Redis; false (keep it buffered) when Redis is unreachable. */
    private boolean park(Delivery d) {
        try {
            heldJobs.park(d.message());
            return true;
        } catch (RuntimeException e) {
            log.warn("cannot park job {} of held tenant {}: {}", d.message().jobId(), d.message().tenant(), e.toString());
            return false;
        }
    }

    /** Moves buffered jobs of tenants suspended since they arrived out to the parking list. */
    private void sweepHeld() {
        long now = nanos.getAsLong();
        if (now - lastSweep < 500_000_000L) return;
        lastSweep = now;
        for (Delivery d : scheduler.drainIf(d -> held.test(d.message().tenant()))) {
            unbuffered(d);
            if (park(d)) {
                offsets.done(d.partition(), d.offset());
            } else {
                readAhead.reserveAnyway(d.partition(), d.message().tenant(), d.bytes(), d.enqueuedAt().toEpochMilli());
                scheduler.add(new JobScheduler.Item<>(d.message().tenant(), d.message().schedulingCost(), d));
            }
        }
    }

    private void applyCompletions() {
        for (Completion c; (c = completions.poll()) != null; ) {
            if (c.commit()) {
                offsets.done(c.partition(), c.offset());
                continue;
            }
            // Not done and not committable: rewind so the job (and what follows it) is polled again.
            TopicPartition tp = c.partition();
            long offset = c.offset();
            if (consumer.assignment().contains(tp)) {
                log.info("job at {}@{} will be redelivered", tp, offset);
                for (Delivery d : scheduler.drainIf(d -> d.partition().equals(tp) && d.offset() > offset)) unbuffered(d);
                offsets.forgetFrom(tp, offset);
                readAhead.rewound(tp, offset);
                consumer.seek(tp, offset);
            }
        }
    }

    private void commitAsync() {
        // At most every COMMIT_INTERVAL: with short polls (a tenant held back) the loop turns hundreds of
        // times a second, and a commit is a request to the group coordinator. Revokes and stops commit
        // synchronously whatever the interval.
        long now = nanos.getAsLong();
        if (now - lastCommit < COMMIT_INTERVAL_NANOS) return;
        lastCommit = now;
        CommitLedger.Sent sent = ledger.next(offsets.drainCommittable(readAhead::floor), owned);
        if (sent.offsets().isEmpty()) return;
        // The callback runs on this thread, inside a later poll().
        consumer.commitAsync(sent.offsets(), (o, e) -> {
            if (e != null) {
                log.warn("offset commit failed, will retry with the next commit: {}", e.toString());
                ledger.failed(sent);
            }
        });
    }

    /** Commits what is finished (and failed commits due again) synchronously; false when it failed. */
    private boolean commitSync(Set<TopicPartition> of, Duration timeout) {
        CommitLedger.Sent sent = ledger.next(offsets.drainCommittable(readAhead::floor), of);
        if (sent.offsets().isEmpty()) return true;
        try {
            consumer.commitSync(sent.offsets(), timeout);
            return true;
        } catch (RuntimeException e) {
            log.warn("offset commit failed: {}", e.toString());
            ledger.failed(sent);
            return false;
        }
    }

    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            handOver(partitions, true);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            handOver(partitions, false);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            ledger.reset(partitions);
            owned.addAll(partitions);
            log.info("assigned {}", partitions);
        }

        private void handOver(Collection<TopicPartition> partitions, boolean commit) {
            Set<TopicPartition> gone = new HashSet<>(partitions);
            owned.removeAll(gone);
            long now = clock.millis();
            gone.forEach(tp -> lastRevokedMillis.put(tp, now));
            List<Delivery> dropped = scheduler.drainIf(d -> gone.contains(d.partition()));
            dropped.forEach(JobConsumer.this::unbuffered);
            applyCompletions();
            if (commit) {
                // Everything finished goes out, the partitions kept too: draining the tracker lets go of their offsets.
                Set<TopicPartition> ours = new HashSet<>(owned);
                ours.addAll(gone);
                commitSync(ours, Duration.ofSeconds(30));
            }
            offsets.forget(gone);
            readAhead.forget(gone);
            gone.forEach(readPositions::remove);
            ledger.reset(gone);
            log.info("partitions {} revoked (commit={}); {} buffered jobs handed back", partitions, commit, dropped.size());
        }
    }

    /**
     * Graceful stop: take no new job, let running jobs finish within {@code deadline}, commit what
     * is done, leave the group. Jobs not finished are redelivered to another worker.
     */
    public void stop(Duration deadline) {
        if (stopping) return;
        stopping = true;
        retries.shutdownNow();
        long until = nanos.getAsLong() + deadline.toNanos();
        if (processors != null) processors.stop(until);
        closing = true;
        if (catchUpThread != null) catchUpThread.interrupt();
        try {
            if (!stopped.await(Math.max(1, (until - nanos.getAsLong()) / 1_000_000) + 5_000, TimeUnit.MILLISECONDS)) {
                consumer.wakeup();
                stopped.await(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void shutdownConsumer() {
        try {
            applyCompletions();
            commitSync(owned, Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            log.warn("final commit failed: {}", e.toString());
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(30));
    }
}
