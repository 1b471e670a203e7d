package com.fairpix.worker.consume;

import com.fairpix.core.job.JobMessage;
import com.fairpix.core.json.Json;
import com.fairpix.worker.JobRunner;
import com.fairpix.worker.notify.EventPublisher;
import com.fairpix.worker.schedule.JobScheduler;
import java.time.Duration;
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
 * job never stalls polling (nor expels the worker from its group, Q4). Offsets are committed per
 * partition only up to the first unfinished job, so a crash loses nothing: unfinished jobs are
 * redelivered, and {@link JobRunner} skips the ones already done.
 *
 * <p>Backpressure is per partition: a partition with {@code perPartitionBuffer} jobs buffered is
 * paused while the others keep flowing, so one tenant's flood does not stop the worker from
 * fetching another tenant's jobs from other partitions. A transient failure is retried after a
 * backoff from a timer, so the processing thread goes on with other tenants' work meanwhile.
 */
public final class JobConsumer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JobConsumer.class);
    private static final java.lang.management.ThreadMXBean THREAD_CPU = java.lang.management.ManagementFactory.getThreadMXBean();
    /** Between polls while a partition is paused: what a new job may wait extra before it is seen. */
    private static final long PAUSED_POLL_INTERVAL_NANOS = 1_000_000;
    /** Between polls while every partition is paused (buffer full, a dependency down, stopping). */
    private static final long ALL_PAUSED_POLL_INTERVAL_NANOS = 10_000_000;

    /** A buffered job with where it came from and how often this worker has tried it. */
    /** @param enqueuedAt the Kafka record's timestamp: when the ingest queued the job */
    public record Delivery(TopicPartition partition, long offset, JobMessage message, int attempt, java.time.Instant enqueuedAt) {}

    private record Completion(TopicPartition partition, long offset, boolean commit) {}

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
    private final CostModel costs = new CostModel();
    private final int sharedThreads;
    private final int reservedThreads;
    private final int sharedNice;
    private final int maxBuffered;
    private final int perPartitionBuffer;
    private final OffsetTracker offsets = new OffsetTracker();
    /** Commits sent and failed; poll thread only. */
    private final CommitLedger ledger = new CommitLedger();
    private final ConcurrentLinkedQueue<Completion> completions = new ConcurrentLinkedQueue<>();
    private final Map<TopicPartition, AtomicInteger> bufferedPerPartition = new ConcurrentHashMap<>();
    private final Set<TopicPartition> owned = ConcurrentHashMap.newKeySet();
    private final Map<TopicPartition, Long> lastRevokedMillis = new ConcurrentHashMap<>();
    private final AtomicInteger running = new AtomicInteger();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final ScheduledThreadPoolExecutor retries = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform().daemon().name("fairpix-retry").unstarted(r));
    private final List<Thread> processors = new ArrayList<>();
    private volatile boolean stopping;
    private volatile boolean closing;
    private volatile boolean healthy;
    private long lastSweep;

    /**
     * @param held               true for a tenant whose jobs must not run now (suspended)
     * @param heldJobs           where such jobs are parked until the tenant is activated
     * @param sharedThreads      processing threads for the scheduler's shared slots
     * @param reservedThreads    processing threads for its reserved slots (normal CPU priority)
     * @param sharedNice         nice value (0..19) of the shared threads: their image work yields the CPU
     *                           to the poll loop, the Kafka client and the reserved threads; 0 leaves it
     * @param maxBuffered        jobs buffered in all before every partition pauses
     * @param perPartitionBuffer jobs buffered from one partition before that partition pauses
     */
    public JobConsumer(Properties consumerProps, String topic, JobScheduler<Delivery> scheduler, JobRunner runner,
                       EventPublisher events, Predicate<String> held, HeldJobs heldJobs, Listener listener,
                       int sharedThreads, int reservedThreads, int sharedNice, int maxBuffered, int perPartitionBuffer) {
        if (sharedNice < 0 || sharedNice > 19) throw new IllegalArgumentException("sharedNice must be 0..19, got " + sharedNice);
        this.consumer = new KafkaConsumer<>(consumerProps);
        this.topic = topic;
        this.scheduler = scheduler;
        this.runner = runner;
        this.events = events;
        this.held = held;
        this.heldJobs = heldJobs;
        this.listener = listener;
        this.sharedThreads = sharedThreads;
        this.reservedThreads = reservedThreads;
        this.sharedNice = sharedNice;
        this.maxBuffered = maxBuffered;
        this.perPartitionBuffer = perPartitionBuffer;
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
        for (int i = 0; i < sharedThreads; i++) {
            processors.add(Thread.ofPlatform().name("fairpix-shared-" + i).start(() -> {
                try {
                    if (sharedNice > 0) CpuPriority.lowerCurrentThread(sharedNice);
                } catch (Throwable e) { // a missing native part must not cost the worker its thread
                    log.warn("processing thread keeps normal CPU priority: {}", e.toString());
                }
                processLoop(JobScheduler.Slot.SHARED);
            }));
        }
        for (int i = 0; i < reservedThreads; i++) {
            processors.add(Thread.ofPlatform().name("fairpix-reserved-" + i).start(() -> processLoop(JobScheduler.Slot.RESERVED)));
        }
        Thread.ofPlatform().name("fairpix-poll").start(this::pollLoop);
    }

    /** True while the poll loop runs without errors (readiness). */
    public boolean healthy() {
        return healthy && !stopping;
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

    public int running() {
        return running.get();
    }

    private void processLoop(JobScheduler.Slot slot) {
        while (!stopping) {
            JobScheduler.Item<Delivery> item;
            try {
                if (dependencyDown.getAsBoolean()) {
                    Thread.sleep(200);
                    continue;
                }
                item = scheduler.take(200, TimeUnit.MILLISECONDS, slot);
            } catch (InterruptedException e) {
                return;
            }
            if (item == null) continue;
            Delivery d = item.payload();
            unbuffered(d);
            if (stopping) {
                // Shutting down: hand the job back (uncommitted) instead of starting it.
                scheduler.finished(item, 0);
                continue;
            }
            if (held.test(d.message().tenant()) && park(d)) {
                scheduler.finished(item, 0);
                completions.add(new Completion(d.partition(), d.offset(), true));
                continue;
            }
            running.incrementAndGet();
            long started = System.nanoTime();
            long cpuStarted = cpuNanos();
            JobRunner.Outcome outcome = new JobRunner.Outcome.Redeliver();
            try {
                outcome = runner.run(d.message(), d.attempt(), d.enqueuedAt());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                log.error("job {} crashed the runner; it will be redelivered", d.message().jobId(), e);
            } finally {
                running.decrementAndGet();
                double seconds = (System.nanoTime() - started) / 1e9;
                // Only a job that ran says what its cost was; a skipped one (cancelled, already done) took no work.
                // Its cost is the thread's CPU time (OpenCV runs on this thread): wall time would charge a job for
                // sharing the cores, as one on the reserved thread always does, and for waiting on memory or I/O.
                boolean ran = outcome instanceof JobRunner.Outcome.Finished f && f.processed();
                long cpu = cpuNanos();
                double measured = cpu >= 0 && cpuStarted >= 0 ? (cpu - cpuStarted) / 1e9 : seconds;
                scheduler.finished(item, ran ? costs.correction(item.cost(), measured) : 0);
                if (ran) listener.finished(item.tenant(), item.cost(), seconds);
                switch (outcome) {
                    case JobRunner.Outcome.Finished f -> completions.add(new Completion(d.partition(), d.offset(), true));
                    case JobRunner.Outcome.Redeliver r -> completions.add(new Completion(d.partition(), d.offset(), false));
                    case JobRunner.Outcome.RetryAfter r -> retryLater(item, r.delay(), r.countsAsAttempt());
                }
            }
        }
    }

    /** This thread's CPU time, ns; -1 where the JVM cannot tell (then wall time is used). */
    private static long cpuNanos() {
        return THREAD_CPU.isCurrentThreadCpuTimeSupported() ? THREAD_CPU.getCurrentThreadCpuTime() : -1;
    }

    private void retryLater(JobScheduler.Item<Delivery> item, Duration delay, boolean countsAsAttempt) {
        Delivery d = item.payload();
        Delivery again = new Delivery(d.partition(), d.offset(), d.message(), d.attempt() + (countsAsAttempt ? 1 : 0), d.enqueuedAt());
        retries.schedule(() -> {
            // A partition revoked meanwhile belongs to another worker now, which redelivers the job.
            if (!owned.contains(d.partition()) || stopping) return;
            buffered(again);
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
                ConsumerRecords<String, byte[]> records = consumer.poll(spinProne ? Duration.ZERO : Duration.ofMillis(100));
                healthy = true;
                for (ConsumerRecord<String, byte[]> r : records) accept(r);
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

    /** Pauses partitions with a full buffer (or all, when stopping or over the total); resumes drained ones. */
    private void applyBackpressure(Set<TopicPartition> paused) {
        Set<TopicPartition> assigned = consumer.assignment();
        paused.retainAll(assigned);
        boolean all = stopping || dependencyDown.getAsBoolean() || scheduler.size() >= maxBuffered;
        Set<TopicPartition> pause = new HashSet<>();
        Set<TopicPartition> resume = new HashSet<>();
        for (TopicPartition tp : assigned) {
            int n = bufferedPerPartition.getOrDefault(tp, new AtomicInteger()).get();
            if (all || n >= perPartitionBuffer) {
                if (!paused.contains(tp)) pause.add(tp);
            } else if (paused.contains(tp) && n <= perPartitionBuffer / 2) {
                resume.add(tp);
            }
        }
        if (!pause.isEmpty()) {
            consumer.pause(pause);
            paused.addAll(pause);
        }
        if (!resume.isEmpty()) {
            consumer.resume(resume);
            paused.removeAll(resume);
        }
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
            try {
                events.deadLetter(r.key(), r.value(), "malformed-message", e.getMessage());
                offsets.done(tp, r.offset());
            } catch (RuntimeException dlqDown) {
                log.warn("cannot dead-letter malformed record {}@{}: {}", tp, r.offset(), dlqDown.toString());
            }
            return;
        }
        Delivery delivery = new Delivery(tp, r.offset(), message, 1, r.timestamp() >= 0 ? java.time.Instant.ofEpochMilli(r.timestamp()) : message.submittedAt());
        if (held.test(message.tenant()) && park(delivery)) {
            offsets.done(tp, r.offset());
            return;
        }
        buffered(delivery);
        scheduler.add(new JobScheduler.Item<>(message.tenant(), cost(message), delivery));
    }

    /** The message's cost estimate, bounded: a bad value must not stall or skew the scheduler. */
    private static double cost(JobMessage m) {
        double c = m.cost();
        return Double.isFinite(c) ? Math.min(1e6, Math.max(0.01, c)) : 1.0;
    }

    private void buffered(Delivery d) {
        bufferedPerPartition.computeIfAbsent(d.partition(), k -> new AtomicInteger()).incrementAndGet();
    }

    private void unbuffered(Delivery d) {
        AtomicInteger n = bufferedPerPartition.get(d.partition());
        if (n != null) n.decrementAndGet();
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
        long now = System.nanoTime();
        if (now - lastSweep < 500_000_000L) return;
        lastSweep = now;
        for (Delivery d : scheduler.drainIf(d -> held.test(d.message().tenant()))) {
            unbuffered(d);
            if (park(d)) {
                offsets.done(d.partition(), d.offset());
            } else {
                buffered(d);
                scheduler.add(new JobScheduler.Item<>(d.message().tenant(), cost(d.message()), d));
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
                consumer.seek(tp, offset);
            }
        }
    }

    private void commitAsync() {
        CommitLedger.Sent sent = ledger.next(offsets.drainCommittable(), owned);
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
        CommitLedger.Sent sent = ledger.next(offsets.drainCommittable(), of);
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
            long now = System.currentTimeMillis();
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
            gone.forEach(bufferedPerPartition::remove);
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
        long until = System.nanoTime() + deadline.toNanos();
        for (Thread t : processors) {
            try {
                t.join(Math.max(1, (until - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Thread t : processors) t.interrupt();
        closing = true;
        try {
            if (!stopped.await(Math.max(1, (until - System.nanoTime()) / 1_000_000) + 5_000, TimeUnit.MILLISECONDS)) {
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
