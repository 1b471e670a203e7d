package com.fairpix.worker.consume;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The poll and commit loop: the one thread that uses the consumer. Each {@link #turn} applies how
 * jobs ended, sweeps held tenants' jobs out, commits, pauses or resumes partitions, polls, offers
 * what it read to the {@link Intake}, publishes the read positions and applies the catch-ups. It
 * never runs a job, so a long job never stalls polling (nor expels the worker from its group).
 */
final class PollLoop {
    private static final Logger log = LoggerFactory.getLogger(PollLoop.class);
    /** Between polls while a partition is paused: what a new job may wait extra before it is seen. */
    private static final long PAUSED_POLL_INTERVAL_NANOS = 1_000_000;
    /** The poll timeout while a tenant is held back (its catch-ups run between polls). */
    private static final Duration HOLDING_POLL_TIMEOUT = Duration.ofMillis(5);
    /** The poll timeout otherwise. */
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    /** Between polls while every partition is paused (buffer full, a dependency down, stopping). */
    private static final long ALL_PAUSED_POLL_INTERVAL_NANOS = 10_000_000;
    /** How long the last commit before closing waits, and then the close. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final Consumer<String, byte[]> consumer;
    private final String topic;
    private final Handover handover;
    private final Completions completions;
    private final HeldSweep sweep;
    private final Commits commits;
    private final Intake intake;
    private final CatchUpLoop catchUps;
    private final ReadAhead readAhead;
    private final OffsetTracker offsets;
    private final Ownership ownership;
    private final BooleanSupplier pauseAll;
    private final Set<TopicPartition> paused = new HashSet<>();
    private volatile boolean healthy;

    /** @param pauseAll true while every partition must be paused (stopping, a dependency down) */
    PollLoop(Consumer<String, byte[]> consumer, String topic, Handover handover, Completions completions, HeldSweep sweep, Commits commits,
             Intake intake, CatchUpLoop catchUps, ReadAhead readAhead, OffsetTracker offsets, Ownership ownership, BooleanSupplier pauseAll) {
        this.consumer = consumer;
        this.topic = topic;
        this.handover = handover;
        this.completions = completions;
        this.sweep = sweep;
        this.commits = commits;
        this.intake = intake;
        this.catchUps = catchUps;
        this.readAhead = readAhead;
        this.offsets = offsets;
        this.ownership = ownership;
        this.pauseAll = pauseAll;
    }

    /**
     * The poll thread's life: subscribes, turns until {@code closing} answers true or the consumer is
     * woken up, then commits what is finished and closes the consumer. An unexpected error ends it
     * (and {@link #healthy}), logged.
     */
    void run(BooleanSupplier closing) {
        try {
            subscribe();
            while (!closing.getAsBoolean()) turn();
        } catch (WakeupException e) {
            // stop() woke us up
        } catch (RuntimeException e) {
            healthy = false;
            log.error("poll loop failed", e);
        } finally {
            shutdown();
        }
    }

    /** Joins the group on the topic, with {@link Handover} as the rebalance listener. */
    void subscribe() {
        consumer.subscribe(List.of(topic), handover);
    }

    /**
     * One turn of the loop.
     *
     * @return the records the poll returned
     */
    int turn() {
        completions.apply();
        sweep.sweep();
        commits.commitAsync();
        applyBackpressure();
        // kafka-clients 4.4's KIP-848 consumer does not block in poll() while a paused partition has
        // fetched data buffered: it re-queues that data with a wake-up and spins for the whole
        // timeout (KAFKA-21084, open), which took a third of a 2-core worker's CPU in the fairness
        // bench. So while anything is paused, poll without waiting and sleep briefly between polls.
        boolean spinProne = !paused.isEmpty();
        // While a tenant is held back, poll briefly: its catch-up runs between polls, and a tenant whose
        // buffer runs dry must not wait out a long poll for its next jobs.
        Duration timeout = spinProne ? Duration.ZERO : readAhead.holding() ? HOLDING_POLL_TIMEOUT : POLL_TIMEOUT;
        ConsumerRecords<String, byte[]> records = consumer.poll(timeout);
        healthy = true;
        for (ConsumerRecord<String, byte[]> r : records) intake.offer(r);
        publishPositions();
        catchUps.apply();
        if (spinProne && records.isEmpty()) {
            // With every partition paused no record can come; only our own resume can change that.
            boolean allPaused = paused.containsAll(consumer.assignment());
            LockSupport.parkNanos(allPaused ? ALL_PAUSED_POLL_INTERVAL_NANOS : PAUSED_POLL_INTERVAL_NANOS);
        }
        return records.count();
    }

    /** True once a poll succeeded, until the loop fails. */
    boolean healthy() {
        return healthy;
    }

    /** Any thread: makes a poll in progress (or the next) throw, ending {@link #run}. */
    void wakeup() {
        consumer.wakeup();
    }

    /**
     * Pauses every partition while {@code pauseAll} says so; in PARTITION mode also the partitions
     * with a full buffer. Resumes the rest.
     */
    private void applyBackpressure() {
        Set<TopicPartition> assigned = consumer.assignment();
        paused.retainAll(assigned);
        Set<TopicPartition> wanted = pauseAll.getAsBoolean() ? new HashSet<>(assigned) : readAhead.full(assigned, paused);
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

    /** Publishes each owned partition's read position to the catch-up thread (the end of its fetches). */
    private void publishPositions() {
        for (TopicPartition tp : ownership.owned()) {
            long p = offsets.position(tp);
            if (p >= 0) ownership.readUpTo(tp, p);
        }
    }

    /** The last commit of what is finished, then the consumer closes (leaving the group). */
    private void shutdown() {
        try {
            completions.apply();
            commits.commitSync(ownership.owned(), CLOSE_TIMEOUT);
        } catch (RuntimeException e) {
            log.warn("final commit failed: {}", e.toString());
        } finally {
            consumer.close(CloseOptions.timeout(CLOSE_TIMEOUT));
        }
    }
}
