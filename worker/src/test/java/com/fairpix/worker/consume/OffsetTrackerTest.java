package com.fairpix.worker.consume;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Only the contiguous finished prefix of each partition is committed, as the next offset to read. */
class OffsetTrackerTest {
    private static final TopicPartition P0 = new TopicPartition("fairpix.jobs.cpu", 0);
    private static final TopicPartition P1 = new TopicPartition("fairpix.jobs.cpu", 1);

    @Test
    void commitsOnlyUpToTheFirstUnfinishedOffset() {
        OffsetTracker t = new OffsetTracker();
        for (long o = 0; o <= 4; o++) t.track(P0, o);
        t.done(P0, 0);
        t.done(P0, 1);
        t.done(P0, 3);

        assertThat(t.drainCommittable()).containsExactly(Map.entry(P0, new OffsetAndMetadata(2)));
        assertThat(t.inFlight()).as("2, 3 and 4 still tracked").isEqualTo(3);

        t.done(P0, 2);
        assertThat(t.drainCommittable()).containsExactly(Map.entry(P0, new OffsetAndMetadata(4)));
        assertThat(t.inFlight()).isEqualTo(1);

        t.done(P0, 4);
        assertThat(t.drainCommittable()).containsExactly(Map.entry(P0, new OffsetAndMetadata(5)));
        assertThat(t.inFlight()).isZero();
    }

    @Test
    void nothingIsCommittedWhileTheOldestJobRuns() {
        OffsetTracker t = new OffsetTracker();
        for (long o = 10; o < 20; o++) t.track(P0, o);
        for (long o = 11; o < 20; o++) t.done(P0, o);

        assertThat(t.drainCommittable()).isEmpty();
        assertThat(t.inFlight()).isEqualTo(10);
    }

    @Test
    void aDrainedPrefixIsNotCommittedAgain() {
        OffsetTracker t = new OffsetTracker();
        t.track(P0, 0);
        t.track(P0, 1);
        t.done(P0, 0);

        assertThat(t.drainCommittable()).containsEntry(P0, new OffsetAndMetadata(1));
        assertThat(t.drainCommittable()).as("only partitions that advanced").isEmpty();
    }

    @Test
    void gapsInKafkaOffsetsDoNotBlockTheCommit() {
        // Compaction and transaction markers leave offsets that are never delivered.
        OffsetTracker t = new OffsetTracker();
        t.track(P0, 5);
        t.track(P0, 8);
        t.done(P0, 8);
        t.done(P0, 5);

        assertThat(t.drainCommittable()).containsExactly(Map.entry(P0, new OffsetAndMetadata(9)));
    }

    @Test
    void partitionsAdvanceIndependently() {
        OffsetTracker t = new OffsetTracker();
        for (long o = 0; o < 3; o++) {
            t.track(P0, o);
            t.track(P1, 100 + o);
        }
        t.done(P0, 0);
        t.done(P0, 1);
        t.done(P1, 101); // P1's oldest is still running

        Map<TopicPartition, OffsetAndMetadata> commit = t.drainCommittable();

        assertThat(commit).containsOnlyKeys(P0).containsEntry(P0, new OffsetAndMetadata(2));

        t.done(P1, 100);
        assertThat(t.drainCommittable()).containsOnlyKeys(P1).containsEntry(P1, new OffsetAndMetadata(102));
    }

    @Test
    void forgetDropsARevokedPartitionAndItsLateCompletions() {
        OffsetTracker t = new OffsetTracker();
        t.track(P0, 0);
        t.track(P1, 0);
        t.done(P0, 0);

        t.forget(List.of(P0));

        assertThat(t.inFlight()).isEqualTo(1);
        assertThat(t.drainCommittable()).as("a revoked partition is not committed").isEmpty();
        t.done(P0, 0); // a job of the revoked partition finishing late
        assertThat(t.drainCommittable()).isEmpty();
        t.done(P1, 0);
        assertThat(t.drainCommittable()).containsOnlyKeys(P1);
    }

    @Test
    void doneForUnknownPartitionsOrOffsetsIsIgnored() {
        OffsetTracker t = new OffsetTracker();
        t.track(P0, 3);

        t.done(P1, 0);   // never tracked partition
        t.done(P0, 2);   // offset never tracked
        t.done(P0, 99);

        assertThat(t.drainCommittable()).isEmpty();
        assertThat(t.inFlight()).isEqualTo(1);
        t.done(P0, 3);
        assertThat(t.drainCommittable()).containsExactly(Map.entry(P0, new OffsetAndMetadata(4)));
    }

    @Test
    void redeliveredOffsetIsTrackedAgainAfterForget() {
        // After a seek back, the same offsets come again and must be tracked from scratch.
        OffsetTracker t = new OffsetTracker();
        t.track(P0, 7);
        t.forget(List.of(P0));
        t.track(P0, 7);
        t.done(P0, 7);

        assertThat(t.drainCommittable()).containsExactly(Map.entry(P0, new OffsetAndMetadata(8)));
    }

    @Test
    void inFlightCountsEveryTrackedUncommittedOffset() {
        OffsetTracker t = new OffsetTracker();
        assertThat(t.inFlight()).isZero();
        for (long o = 0; o < 5; o++) t.track(P0, o);
        for (long o = 0; o < 2; o++) t.track(P1, o);

        assertThat(t.inFlight()).isEqualTo(7);
    }

    @Test
    void theFloorOfRecordsReadPastHoldsTheCommitBackUntilItMoves() {
        OffsetTracker t = new OffsetTracker();
        t.track(P0, 0);
        t.seen(P0, 1);   // read past: held back from 1
        t.track(P0, 2);
        t.seen(P0, 3);
        t.done(P0, 0);
        t.done(P0, 2);
        long[] floor = {1};
        assertThat(t.drainCommittable(tp -> floor[0])).containsExactly(Map.entry(P0, new OffsetAndMetadata(1)));
        assertThat(t.drainCommittable(tp -> floor[0])).as("nothing new").isEmpty();
        floor[0] = 3; // the catch-up took 1 (tracked again) and moved the hold to 3
        t.track(P0, 1);
        assertThat(t.drainCommittable(tp -> floor[0])).isEmpty();
        t.done(P0, 1);
        assertThat(t.drainCommittable(tp -> floor[0])).containsExactly(Map.entry(P0, new OffsetAndMetadata(3)));
        floor[0] = Long.MAX_VALUE; // caught up
        assertThat(t.drainCommittable(tp -> floor[0])).containsExactly(Map.entry(P0, new OffsetAndMetadata(4)));
        assertThat(t.position(P0)).isEqualTo(4);
    }

    @Test
    void aPartitionWhoseRecordsWereAllReadPastCommitsNoFurtherThanTheFloor() {
        OffsetTracker t = new OffsetTracker();
        t.track(P0, 39);
        t.seen(P0, 40);
        t.seen(P0, 41);
        t.done(P0, 39);
        assertThat(t.drainCommittable(tp -> 40)).containsExactly(Map.entry(P0, new OffsetAndMetadata(40)));
        assertThat(t.drainCommittable(tp -> 40)).isEmpty();
        t.forgetFrom(P0, 40);
        assertThat(t.position(P0)).isEqualTo(40);
    }
}
