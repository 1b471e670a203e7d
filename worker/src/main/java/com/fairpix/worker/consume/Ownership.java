package com.fairpix.worker.consume;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The partitions this worker owns, when each was last taken from it, and how far the main cursor
 * has read each: what the poll thread knows and the catch-up thread and the retry timer must see.
 * Thread-safe; only the poll thread (and the rebalance callbacks it runs) changes it.
 */
final class Ownership {
    private final Set<TopicPartition> owned = ConcurrentHashMap.newKeySet();
    private final Map<TopicPartition, Long> lastRevokedMillis = new ConcurrentHashMap<>();
    /** Each owned partition's read position: where a catch-up's fetches end. */
    private final Map<TopicPartition, Long> readPositions = new ConcurrentHashMap<>();

    void assigned(Collection<TopicPartition> partitions) {
        owned.addAll(partitions);
    }

    /**
     * The partitions are no longer this worker's; their read positions stay until {@link #forgetPositions}.
     *
     * @param nowMillis the wall clock, epoch ms: when they were taken
     */
    void revoked(Collection<TopicPartition> partitions, long nowMillis) {
        owned.removeAll(partitions);
        partitions.forEach(tp -> lastRevokedMillis.put(tp, nowMillis));
    }

    boolean owns(TopicPartition tp) {
        return owned.contains(tp);
    }

    /** The owned partitions, live (it changes under the reader; copy it to keep it). */
    Set<TopicPartition> owned() {
        return owned;
    }

    /** When each partition was last taken from this worker, epoch ms; absent if never. */
    Map<TopicPartition, Long> lastRevoked() {
        return Map.copyOf(lastRevokedMillis);
    }

    /** Poll thread: the main cursor has read {@code tp} up to (not including) {@code position}. */
    void readUpTo(TopicPartition tp, long position) {
        readPositions.put(tp, position);
    }

    /** The main cursor's read position in {@code tp}; null when none is known (not owned, nothing read). */
    Long readPosition(TopicPartition tp) {
        return readPositions.get(tp);
    }

    void forgetPositions(Collection<TopicPartition> partitions) {
        partitions.forEach(readPositions::remove);
    }
}
