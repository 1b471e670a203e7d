package com.fairpix.worker.consume;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The offset commits a consumer has sent, so that a failed one (a commit during a rebalance, say)
 * goes out again without ever moving a committed offset backwards. {@link OffsetTracker} lets go
 * of the offsets it hands out; without a retry, a partition with no further progress would keep
 * its old committed offset, and its lag, for good.
 *
 * <p>A failed commit is retried only if no later commit of the same partition was sent since
 * (Kafka completes commits, and runs their callbacks, in the order they were sent) and the
 * partition has not been revoked or reassigned since. Not thread-safe: the poll thread only, which
 * is where Kafka runs commit callbacks (inside poll, commitSync and close).
 */
final class CommitLedger {
    /** The next offset to read, as sent in the latest commit of each partition. */
    private final Map<TopicPartition, Long> highestSent = new HashMap<>();
    /** Bumped whenever a partition is assigned or revoked: older commits belong to another assignment. */
    private final Map<TopicPartition, Integer> generation = new HashMap<>();
    private final Map<TopicPartition, OffsetAndMetadata> toRetry = new HashMap<>();

    /** What one commit covered, to hand back to {@link #failed}. */
    record Sent(Map<TopicPartition, OffsetAndMetadata> offsets, Map<TopicPartition, Integer> generations) {}

    /**
     * The next commit: {@code finished} (the tracker's finished prefixes) with the failed commits of
     * partitions in {@code owned} that are still due; stamped as sent.
     */
    Sent next(Map<TopicPartition, OffsetAndMetadata> finished, Set<TopicPartition> owned) {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>(finished);
        toRetry.forEach((tp, o) -> {
            if (owned.contains(tp)) out.merge(tp, o, CommitLedger::later);
        });
        toRetry.clear();
        Map<TopicPartition, Integer> generations = new HashMap<>();
        out.forEach((tp, o) -> {
            highestSent.merge(tp, o.offset(), Math::max);
            generations.put(tp, generation.getOrDefault(tp, 0));
        });
        return new Sent(Map.copyOf(out), generations);
    }

    /** The commit failed: what no later commit covers is sent again with the next one. */
    void failed(Sent sent) {
        sent.offsets().forEach((tp, o) -> {
            boolean sameAssignment = generation.getOrDefault(tp, 0).equals(sent.generations().get(tp));
            if (sameAssignment && o.offset() >= highestSent.getOrDefault(tp, -1L)) toRetry.merge(tp, o, CommitLedger::later);
        });
    }

    /** The partitions were assigned or revoked: forget their commits. */
    void reset(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            generation.merge(tp, 1, Integer::sum);
            highestSent.remove(tp);
            toRetry.remove(tp);
        }
    }

    private static OffsetAndMetadata later(OffsetAndMetadata a, OffsetAndMetadata b) {
        return a.offset() >= b.offset() ? a : b;
    }
}
