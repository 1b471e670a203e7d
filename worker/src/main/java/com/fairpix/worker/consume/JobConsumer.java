package com.fairpix.worker.consume;

import com.fairpix.core.job.JobMessage;
import com.fairpix.core.json.Json;
import com.fairpix.worker.JobRunner;
import com.fairpix.worker.notify.EventPublisher;
import com.fairpix.worker.schedule.FairScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * commits: jobs go into the {@link FairScheduler} and run on separate processing threads, so a long
 * job never stalls polling (nor expels the worker from its group). Offsets are committed per
 * partition only up to the first unfinished job, so a crash loses nothing: unfinished jobs are
 * redelivered, and {@link JobRunner} skips the ones already done.
 */
public final class JobConsumer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JobConsumer.class);

    /** A buffered job with where it came from. */
    public record Delivery(TopicPartition partition, long offset, JobMessage message) {}

    private record Completion(TopicPartition partition, long offset, boolean commit) {}

    private final KafkaConsumer<String, byte[]> consumer;
    private final String topic;
    private final FairScheduler<Delivery> scheduler;
    private final JobRunner runner;
    private final java.util.function.Predicate<String> held;
    private final HeldJobs heldJobs;
    private long lastSweep;
    private final EventPublisher events;
    private final int threads;
    private final int maxBuffered;
    private final OffsetTracker offsets = new OffsetTracker();
    private final ConcurrentLinkedQueue<Completion> completions = new ConcurrentLinkedQueue<>();
    private final AtomicInteger running = new AtomicInteger();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean stopping;
    private volatile boolean closing;
    private volatile boolean healthy;
    private final List<Thread> processors = new ArrayList<>();
    private Thread pollThread;

    /**
     * @param held        true for a tenant whose jobs must not run now (suspended)
     * @param heldJobs    where such jobs are parked until the tenant is activated
     * @param threads     processing threads
     * @param maxBuffered jobs buffered before polling pauses (backpressure)
     */
    public JobConsumer(Properties consumerProps, String topic, FairScheduler<Delivery> scheduler, JobRunner runner,
                       EventPublisher events, java.util.function.Predicate<String> held, HeldJobs heldJobs,
                       int threads, int maxBuffered) {
        this.held = held;
        this.heldJobs = heldJobs;
        this.consumer = new KafkaConsumer<>(consumerProps);
        this.topic = topic;
        this.scheduler = scheduler;
        this.runner = runner;
        this.events = events;
        this.threads = threads;
        this.maxBuffered = maxBuffered;
    }

    public void start() {
        for (int i = 0; i < threads; i++) {
            Thread t = Thread.ofPlatform().name("fairpix-process-" + i).start(this::processLoop);
            processors.add(t);
        }
        pollThread = Thread.ofPlatform().name("fairpix-poll").start(this::pollLoop);
    }

    /** True while the poll loop runs without errors (readiness). */
    public boolean healthy() {
        return healthy && !stopping;
    }

    public int buffered() {
        return scheduler.size();
    }

    public int running() {
        return running.get();
    }

    private void processLoop() {
        while (!stopping) {
            FairScheduler.Item<Delivery> item;
            try {
                item = scheduler.take(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (item == null) continue;
            if (stopping) {
                // Shutting down: hand buffered jobs back (uncommitted) instead of starting them.
                continue;
            }
            Delivery d = item.payload();
            if (held.test(d.message().tenant()) && park(d)) {
                completions.add(new Completion(d.partition(), d.offset(), true));
                continue;
            }
            running.incrementAndGet();
            boolean commit = false;
            try {
                commit = runner.run(d.message());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                log.error("job {} crashed the runner; it will be redelivered", d.message().jobId(), e);
            } finally {
                running.decrementAndGet();
                completions.add(new Completion(d.partition(), d.offset(), commit));
            }
        }
    }

    private void pollLoop() {
        try {
            consumer.subscribe(List.of(topic), new Rebalance());
            Set<TopicPartition> paused = new HashSet<>();
            while (!closing) {
                applyCompletions();
                sweepHeld();
                commitAsync();
                if (stopping || scheduler.size() >= maxBuffered) {
                    Set<TopicPartition> assigned = consumer.assignment();
                    consumer.pause(assigned);
                    paused.addAll(assigned);
                } else if (!paused.isEmpty()) {
                    consumer.resume(paused);
                    paused.clear();
                }
                ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(100));
                healthy = true;
                for (ConsumerRecord<String, byte[]> r : records) accept(r);
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
        Delivery delivery = new Delivery(tp, r.offset(), message);
        if (held.test(message.tenant()) && park(delivery)) {
            offsets.done(tp, r.offset());
            return;
        }
        scheduler.add(new FairScheduler.Item<>(message.tenant(), Math.max(0.01, message.cost()), delivery));
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
            if (park(d)) offsets.done(d.partition(), d.offset());
            else scheduler.add(new FairScheduler.Item<>(d.message().tenant(), Math.max(0.01, d.message().cost()), d));
        }
    }

    private void applyCompletions() {
        for (Completion c; (c = completions.poll()) != null; ) {
            if (c.commit()) {
                offsets.done(c.partition(), c.offset());
            } else {
                // Not done and not committable: seek back so the job is polled again.
                log.info("job at {}@{} will be redelivered", c.partition(), c.offset());
                TopicPartition tp = c.partition();
                long offset = c.offset();
                if (consumer.assignment().contains(tp)) {
                    scheduler.removeIf(d -> d.partition().equals(tp) && d.offset() > offset);
                    offsets.forget(List.of(c.partition()));
                    consumer.seek(c.partition(), c.offset());
                }
            }
        }
    }

    private void commitAsync() {
        Map<TopicPartition, OffsetAndMetadata> toCommit = offsets.drainCommittable();
        if (!toCommit.isEmpty()) {
            consumer.commitAsync(toCommit, (o, e) -> {
                if (e != null) log.warn("offset commit failed (the jobs will be redelivered and skipped): {}", e.toString());
            });
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
            log.info("assigned {}", partitions);
        }

        private void handOver(Collection<TopicPartition> partitions, boolean commit) {
            Set<TopicPartition> gone = new HashSet<>(partitions);
            int dropped = scheduler.removeIf(d -> gone.contains(d.partition()));
            applyCompletions();
            if (commit) {
                Map<TopicPartition, OffsetAndMetadata> toCommit = offsets.drainCommittable();
                toCommit.keySet().retainAll(gone);
                try {
                    if (!toCommit.isEmpty()) consumer.commitSync(toCommit);
                } catch (RuntimeException e) {
                    log.warn("commit on revoke failed: {}", e.toString());
                }
            }
            offsets.forget(gone);
            log.info("partitions {} revoked (commit={}); {} buffered jobs handed back", partitions, commit, dropped);
        }
    }

    /**
     * Graceful stop: take no new job, let running jobs finish within {@code deadline}, commit what
     * is done, leave the group. Jobs not finished are redelivered to another worker.
     */
    public void stop(Duration deadline) {
        if (stopping) return;
        stopping = true;
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
            Map<TopicPartition, OffsetAndMetadata> toCommit = offsets.drainCommittable();
            if (!toCommit.isEmpty()) consumer.commitSync(toCommit, Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            log.warn("final commit failed: {}", e.toString());
        } finally {
            consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(30));
    }
}
