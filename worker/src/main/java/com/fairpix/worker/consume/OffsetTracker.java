package com.fairpix.worker.consume;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Which offsets of each partition are finished, so that only the contiguous prefix of finished
 * jobs is committed: a job still running (or buffered) is never skipped by a commit, and a crash
 * redelivers it. Not thread-safe: used from the poll loop only.
 */
public final class OffsetTracker {
    private final Map<TopicPartition, TreeMap<Long, Boolean>> pending = new HashMap<>();

    public void track(TopicPartition tp, long offset) {
        pending.computeIfAbsent(tp, k -> new TreeMap<>()).put(offset, false);
    }

    /** Marks an offset finished; ignored for partitions no longer owned. */
    public void done(TopicPartition tp, long offset) {
        TreeMap<Long, Boolean> offsets = pending.get(tp);
        if (offsets != null && offsets.containsKey(offset)) offsets.put(offset, true);
    }

    /**
     * Pops the finished prefix of every partition.
     *
     * @return the offsets to commit (next offset to read), only for partitions that advanced
     */
    public Map<TopicPartition, OffsetAndMetadata> drainCommittable() {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (var e : pending.entrySet()) {
            long last = -1;
            for (Iterator<Map.Entry<Long, Boolean>> it = e.getValue().entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Long, Boolean> o = it.next();
                if (!o.getValue()) break;
                last = o.getKey();
                it.remove();
            }
            if (last >= 0) out.put(e.getKey(), new OffsetAndMetadata(last + 1));
        }
        return out;
    }

    /**
     * Stops tracking offsets from {@code offset} on (they will be polled again after a seek); earlier
     * offsets, still running or buffered, stay tracked so no commit can pass them.
     */
    public void forgetFrom(TopicPartition tp, long offset) {
        TreeMap<Long, Boolean> offsets = pending.get(tp);
        if (offsets != null) offsets.tailMap(offset, true).clear();
    }

    public void forget(java.util.Collection<TopicPartition> partitions) {
        partitions.forEach(pending::remove);
    }

    /** Offsets tracked and not yet committed, over all partitions. */
    public int inFlight() {
        return pending.values().stream().mapToInt(Map::size).sum();
    }
}
