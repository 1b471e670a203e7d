package com.fairpix.worker.consume;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.ThreadStates;
import com.fairpix.worker.consume.ReadAhead.Verdict;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ReadAheadTest {
    private static final TopicPartition P0 = new TopicPartition("jobs", 0);
    private static final TopicPartition P1 = new TopicPartition("jobs", 1);

    private static ReadAhead tenantMode(int tenantRecords, int totalRecords) {
        // The system's clock: claimDue's timed wait is real.
        return new ReadAhead(ReadAhead.Mode.TENANT, new ReadAhead.Limits(tenantRecords, 1 << 20, totalRecords, 8 << 20, 32), System::nanoTime);
    }

    @Test
    void aFloodingTenantIsHeldBackAtItsLimitWhileAnotherTenantOnTheSamePartitionIsStillBuffered() {
        ReadAhead ra = tenantMode(4, 100);
        for (long o = 0; o < 4; o++) assertThat(ra.offer(P0, o, "noisy", 100, 1_000 + o)).isEqualTo(Verdict.BUFFER);
        assertThat(ra.offer(P0, 4, "noisy", 100, 1_004)).isEqualTo(Verdict.READ_PAST);
        assertThat(ra.offer(P0, 5, "quiet", 100, 1_005)).isEqualTo(Verdict.BUFFER);
        // Once held back, the tenant's later records are read past too, even with room: its order is kept.
        ra.released(P0, "noisy", 100, 1_000);
        assertThat(ra.offer(P0, 6, "noisy", 100, 1_006)).isEqualTo(Verdict.READ_PAST);
        assertThat(ra.records()).isEqualTo(4);
        assertThat(ra.records("noisy")).isEqualTo(3);
        assertThat(ra.heldBack()).containsEntry("noisy", 2L);
        assertThat(ra.floor(P0)).as("no commit passes the first record read past").isEqualTo(4);
        assertThat(ra.floor(P1)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aHeldBackTenantIsDueForACatchUpOnceItsBufferIsDownToHalf() {
        ReadAhead ra = tenantMode(4, 100);
        for (long o = 0; o < 5; o++) ra.offer(P0, o, "noisy", 100, o);
        assertThat(ra.due()).isEmpty();
        ra.released(P0, "noisy", 100, 0);
        assertThat(ra.due()).as("3 of 4 held: above half").isEmpty();
        ra.released(P0, "noisy", 100, 1);
        assertThat(ra.due()).containsExactly(new ReadAhead.CatchUp(P0, "noisy", 4, 4, 2, 0));

        assertThat(ra.tryReserve(P0, "noisy", 100, 4)).isTrue();
        assertThat(ra.tryReserve(P0, "noisy", 100, 5)).isTrue();
        assertThat(ra.tryReserve(P0, "noisy", 100, 6)).as("full again").isFalse();
        ra.advanced(P0, "noisy", 0, 9, 9, 2, false);
        assertThat(ra.floor(P0)).isEqualTo(9);
        ra.advanced(P0, "noisy", 0, 12, -1, 0, true);
        assertThat(ra.floor(P0)).as("caught up: the hold ends").isEqualTo(Long.MAX_VALUE);
        assertThat(ra.heldBack()).isEmpty();
    }

    @Test
    void theEmptiestTenantIsCaughtUpFirstWhenTheTotalIsTheLimit() {
        ReadAhead ra = tenantMode(4, 6);
        for (long o = 0; o < 4; o++) ra.offer(P0, o, "a", 10, o);
        ra.offer(P0, 4, "b", 10, 4);
        ra.offer(P0, 5, "b", 10, 5);
        // The worker is full: a quiet tenant's record is read past too, never dropped.
        assertThat(ra.offer(P1, 0, "quiet", 10, 6)).isEqualTo(Verdict.READ_PAST);
        assertThat(ra.offer(P0, 6, "a", 10, 7)).isEqualTo(Verdict.READ_PAST);
        assertThat(ra.due()).as("no room at all").isEmpty();
        ra.released(P0, "a", 10, 0);
        ra.released(P0, "a", 10, 1);
        List<ReadAhead.CatchUp> due = ra.due();
        assertThat(due).extracting(ReadAhead.CatchUp::tenant).containsExactly("quiet", "a");
        assertThat(due.get(0).room()).isEqualTo(2);
    }

    @Test
    void aTenantHeldBackOnSeveralPartitionsIsDueOnceForItsOldestHold() {
        ReadAhead ra = tenantMode(2, 100);
        ra.offer(P0, 0, "a", 1, 100);
        ra.offer(P0, 1, "a", 1, 101);
        ra.offer(P1, 7, "a", 1, 90);   // held on P1 since 90
        ra.offer(P0, 2, "a", 1, 102);  // held on P0 since 102
        assertThat(ra.holding()).isTrue();
        ra.released(P0, "a", 1, 100);
        assertThat(ra.due()).containsExactly(new ReadAhead.CatchUp(P1, "a", 7, 90, 1, 0));
        ra.advanced(P1, "a", 0, 8, -1, 1, true);
        assertThat(ra.due()).extracting(ReadAhead.CatchUp::partition).containsExactly(P0);
        ra.advanced(P0, "a", 0, 3, -1, 0, true);
        assertThat(ra.holding()).isFalse();
    }

    @Test
    void aRecordLargerThanTheByteLimitStillGoesThroughAlone() {
        ReadAhead ra = new ReadAhead(ReadAhead.Mode.TENANT, new ReadAhead.Limits(4, 1_000, 100, 10_000, 32), System::nanoTime);
        assertThat(ra.offer(P0, 0, "a", 5_000, 0)).isEqualTo(Verdict.BUFFER);
        assertThat(ra.offer(P0, 1, "a", 10, 1)).isEqualTo(Verdict.READ_PAST);
        assertThat(ra.bytes()).isEqualTo(5_000);
        ra.released(P0, "a", 5_000, 0);
        assertThat(ra.bytes()).isZero();
        assertThat(ra.tryReserve(P0, "a", 600, 1)).isTrue();
        assertThat(ra.tryReserve(P0, "a", 600, 2)).as("over the tenant's bytes").isFalse();
    }

    @Test
    void rewindingEndsTheHoldsFromThereAndForgettingEndsAPartitionsHolds() {
        ReadAhead ra = tenantMode(1, 100);
        ra.offer(P0, 0, "a", 1, 0);
        ra.offer(P0, 1, "a", 1, 1);  // a held from 1
        ra.offer(P0, 2, "b", 1, 2);
        ra.offer(P0, 5, "b", 1, 5);  // b held from 5
        ra.offer(P1, 0, "c", 1, 0);
        ra.offer(P1, 1, "c", 1, 1);  // c held from 1 on P1
        ra.rewound(P0, 3);
        assertThat(ra.floor(P0)).isEqualTo(1);
        assertThat(ra.heldBack()).containsOnlyKeys("a", "c");
        ra.forget(List.of(P0));
        assertThat(ra.floor(P0)).isEqualTo(Long.MAX_VALUE);
        assertThat(ra.floor(P1)).isEqualTo(1);
    }

    @Test
    void oldestWaitingCoversBufferedAndHeldBackRecords() {
        ReadAhead ra = tenantMode(2, 100);
        ra.offer(P0, 0, "a", 1, 500);
        ra.offer(P0, 1, "a", 1, 600);
        ra.offer(P1, 0, "b", 1, 700);
        ra.offer(P1, 1, "a", 1, 400); // read past on P1: held back since 400
        assertThat(ra.oldestWaiting()).containsEntry("a", 400L).containsEntry("b", 700L);
        ra.released(P1, "b", 1, 700);
        assertThat(ra.oldestWaiting()).doesNotContainKey("b");
    }

    @Test
    void partitionModePausesAFullPartitionUntilItIsHalfDrained() {
        ReadAhead ra = new ReadAhead(ReadAhead.Mode.PARTITION, new ReadAhead.Limits(1, 1, 1_000, 1, 4), System::nanoTime);
        for (long o = 0; o < 4; o++) assertThat(ra.offer(P0, o, "noisy", 100, o)).isEqualTo(Verdict.BUFFER);
        ra.offer(P1, 0, "quiet", 100, 0);
        Set<TopicPartition> assigned = Set.of(P0, P1);
        assertThat(ra.full(assigned, Set.of())).containsExactly(P0);
        ra.released(P0, "noisy", 100, 0);
        assertThat(ra.full(assigned, Set.of(P0))).as("3 of 4: stays paused").containsExactly(P0);
        ra.released(P0, "noisy", 100, 1);
        assertThat(ra.full(assigned, Set.of(P0))).isEmpty();
        assertThat(ra.due()).isEmpty();
    }

    @Test
    void aClaimedHoldIsNotPlannedTwiceAndARewindVoidsItsCatchUp() throws Exception {
        ReadAhead ra = tenantMode(2, 100);
        ra.offer(P0, 0, "a", 1, 0);
        ra.offer(P0, 1, "a", 1, 1);
        ra.offer(P0, 2, "a", 1, 2);    // held from 2
        ra.released(P0, "a", 1, 0);
        List<ReadAhead.CatchUp> first = ra.claimDue(0);
        assertThat(first).hasSize(1);
        assertThat(ra.claimDue(0)).as("claimed: not planned again").isEmpty();
        ra.rewound(P0, 5);             // a job at 5 is redelivered: the hold at 2 stays, the plan is void
        assertThat(ra.advanced(P0, "a", first.get(0).generation(), 3, -1, 1, false)).isFalse();
        assertThat(ra.floor(P0)).as("the hold did not move").isEqualTo(2);
        List<ReadAhead.CatchUp> again = ra.claimDue(0);
        assertThat(again).as("unclaimed by the void catch-up").hasSize(1);
        assertThat(again.get(0).generation()).isEqualTo(1);
        assertThat(ra.advanced(P0, "a", 1, 3, -1, 1, false)).isTrue();
        assertThat(ra.floor(P0)).isEqualTo(3);
    }

    @Test
    void claimDueWaitsUntilAReleaseMakesACatchUpDue() throws Exception {
        ReadAhead ra = tenantMode(2, 100);
        ra.offer(P0, 0, "a", 1, 0);
        ra.offer(P0, 1, "a", 1, 1);
        ra.offer(P0, 2, "a", 1, 2);
        CompletableFuture<List<ReadAhead.CatchUp>> claimed = new CompletableFuture<>();
        Thread claimer = Thread.ofPlatform().start(() -> {
            try {
                claimed.complete(ra.claimDue(5_000_000_000L));
            } catch (InterruptedException e) {
                claimed.completeExceptionally(e);
            }
        });
        ThreadStates.awaitTimedWaiting(claimer); // nothing is due yet: it waits
        long released = System.nanoTime();
        ra.released(P0, "a", 1, 0);
        List<ReadAhead.CatchUp> due = claimed.get(10, TimeUnit.SECONDS);
        long waitedMs = (System.nanoTime() - released) / 1_000_000;
        assertThat(due).hasSize(1);
        assertThat(waitedMs).as("woken by the release, not the 5 s timeout").isLessThan(4_000);
        assertThat(ra.claimDue(1_000_000L)).as("timeout with nothing due").isEmpty();
    }
}
