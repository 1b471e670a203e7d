package com.fairpix.worker.consume;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Which offsets of each partition are finished, so that a commit never passes a job that is not:
 * the committed offset of a partition is the lowest of its first unfinished tracked offset, the
 * floor the caller gives (the first record a worker read past and has not fetched again, see
 * {@link ReadAhead}), and the next offset to read. A job still running or buffered, or read past,
 * is therefore never skipped by a commit, and a crash redelivers it. Not thread-safe: used from
 * the poll loop only.
 */
public final class OffsetTracker {
    private static final class Partition {
        final TreeMap<Long, Boolean> pending = new TreeMap<>();
        /** The next offset after the highest one read (tracked or read past); -1 before the first. */
        long next = -1;
        /**
         * The offset handed out by the last drain, at first the first offset read (where the group's
         * committed offset stood); commits only go forward.
         */
        long committed;

        Partition(long first) {
            this.committed = first;
        }
    }

    private final Map<TopicPartition, Partition> partitions = new HashMap<>();

    /** A record that will be processed (buffered): it holds the commit back until {@link #done}. */
    public void track(TopicPartition tp, long offset) {
        Partition p = partitions.computeIfAbsent(tp, k -> new Partition(offset));
        p.pending.put(offset, false);
        p.next = Math.max(p.next, offset + 1);
    }

    /** A record read but not tracked (read past, parked): only moves the partition's read position. */
    public void seen(TopicPartition tp, long offset) {
        Partition p = partitions.computeIfAbsent(tp, k -> new Partition(offset));
        p.next = Math.max(p.next, offset + 1);
    }

    /** The next offset after the highest one read from {@code tp}; -1 when none was read. */
    public long position(TopicPartition tp) {
        Partition p = partitions.get(tp);
        return p == null ? -1 : p.next;
    }

    /** Marks an offset finished; ignored for partitions or offsets not tracked. */
    public void done(TopicPartition tp, long offset) {
        Partition p = partitions.get(tp);
        if (p != null && p.pending.containsKey(offset)) p.pending.put(offset, true);
    }

    /** {@link #drainCommittable(ToLongFunction)} with no floor. */
    public Map<TopicPartition, OffsetAndMetadata> drainCommittable() {
        return drainCommittable(tp -> Long.MAX_VALUE);
    }

    /**
     * Pops the finished prefix of every partition.
     *
     * @param floor per partition, an offset no commit may pass (Long.MAX_VALUE for none)
     * @return the offsets to commit (next offset to read), only for partitions that advanced
     */
    public Map<TopicPartition, OffsetAndMetadata> drainCommittable(ToLongFunction<TopicPartition> floor) {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (var e : partitions.entrySet()) {
            Partition p = e.getValue();
            if (p.next < 0) continue;
            long candidate = Math.min(p.next, floor.applyAsLong(e.getKey()));
            for (Iterator<Map.Entry<Long, Boolean>> it = p.pending.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Long, Boolean> o = it.next();
                if (!o.getValue() || o.getKey() >= candidate) {
                    candidate = Math.min(candidate, o.getKey());
                    break;
                }
                it.remove();
            }
            if (candidate > p.committed) {
                p.committed = candidate;
                out.put(e.getKey(), new OffsetAndMetadata(candidate));
            }
        }
        return out;
    }

    /**
     * Stops tracking offsets from {@code offset} on (they will be polled again after a seek); earlier
     * offsets, still running or buffered, stay tracked so no commit can pass them.
     */
    public void forgetFrom(TopicPartition tp, long offset) {
        Partition p = partitions.get(tp);
        if (p == null) return;
        p.pending.tailMap(offset, true).clear();
        p.next = Math.min(p.next, offset);
    }

    public void forget(java.util.Collection<TopicPartition> partitions) {
        partitions.forEach(this.partitions::remove);
    }

    /** Offsets tracked and not yet committed, over all partitions. */
    public int inFlight() {
        return partitions.values().stream().mapToInt(p -> p.pending.size()).sum();
    }
}
