package com.fairpix.worker.consume;

import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offset commits: per partition up to its first unfinished job and never past its first record
 * held back ({@link OffsetTracker#drainCommittable}, {@link ReadAhead#floor}), a failed commit sent
 * again with the next one ({@link CommitLedger}). Poll thread only: it alone uses the consumer.
 */
final class Commits {
    private static final Logger log = LoggerFactory.getLogger(Commits.class);
    /** Between two asynchronous offset commits. */
    static final long COMMIT_INTERVAL_NANOS = 50_000_000L;

    private final Consumer<String, byte[]> consumer;
    private final OffsetTracker offsets;
    private final ReadAhead readAhead;
    private final Ownership ownership;
    private final LongSupplier nanos;
    private final CommitLedger ledger = new CommitLedger();
    /** When commitAsync last ran (on the nanosecond clock). */
    private long lastCommit;

    /** @param nanos monotonic clock, nanoseconds: the interval between asynchronous commits */
    Commits(Consumer<String, byte[]> consumer, OffsetTracker offsets, ReadAhead readAhead, Ownership ownership, LongSupplier nanos) {
        this.consumer = consumer;
        this.offsets = offsets;
        this.readAhead = readAhead;
        this.ownership = ownership;
        this.nanos = nanos;
    }

    /** Commits what is finished without waiting, at most every {@link #COMMIT_INTERVAL_NANOS}. */
    void commitAsync() {
        // At most every COMMIT_INTERVAL: with short polls (a tenant held back) the loop turns hundreds of
        // times a second, and a commit is a request to the group coordinator. Revokes and stops commit
        // synchronously whatever the interval.
        long now = nanos.getAsLong();
        if (now - lastCommit < COMMIT_INTERVAL_NANOS) return;
        lastCommit = now;
        CommitLedger.Sent sent = ledger.next(offsets.drainCommittable(readAhead::floor), ownership.owned());
        if (sent.offsets().isEmpty()) return;
        // The callback runs on this thread, inside a later poll().
        consumer.commitAsync(sent.offsets(), (o, e) -> {
            if (e != null) {
                log.warn("offset commit failed, will retry with the next commit: {}", e.toString());
                ledger.failed(sent);
            }
        });
    }

    /**
     * Commits what is finished (and failed commits of {@code of} due again) synchronously.
     *
     * @param timeout how long to wait for the group coordinator
     * @return false when the commit failed (it is retried with the next one)
     */
    boolean commitSync(Set<TopicPartition> of, Duration timeout) {
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

    /** The partitions were assigned or revoked: commits sent for them before belong to another assignment. */
    void reset(Collection<TopicPartition> partitions) {
        ledger.reset(partitions);
    }
}
