package com.fairpix.worker.consume;

import static com.fairpix.worker.consume.ConsumptionFixture.P0;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The poll and commit loop on a {@code MockConsumer}: a partition's committed offset never passes
 * its first unfinished job nor its first record held back, so a crash or a revoke loses nothing
 * (docs/isolation.md, "Commit below every hold").
 */
class CommitBelowHoldTest {
    /** Two records of one tenant buffered at most: the flood's third record puts it on hold. */
    private final ConsumptionFixture f = new ConsumptionFixture(2).assigned(P0);

    @Test
    void aPartitionIsCommittedUpToItsFirstUnfinishedJob() {
        f.append(P0, 0, "a", "b", "c", "d");
        f.turn();
        f.finish(P0, 0, 2, 3);
        f.turn();

        assertThat(f.committed(P0)).isEqualTo(1);

        f.finish(P0, 1);
        f.turn();
        assertThat(f.committed(P0)).isEqualTo(4);
    }

    @Test
    void aPartitionIsCommittedOnlyUpToItsFirstRecordHeldBackThoughEveryJobBufferedIsFinished() {
        // flood 0, 1 buffered; flood 2, 3 read past (held back from 2); quiet 4, 5 buffered
        f.append(P0, 0, "flood", "flood", "flood", "flood", "quiet", "quiet");
        f.turn();
        assertThat(f.buffered(P0)).containsExactly(0L, 1L, 4L, 5L);

        f.finishAll();
        f.turn();

        assertThat(f.committed(P0)).isEqualTo(2);
        assertThat(f.consumer.readAhead().holding()).isTrue();
    }

    @Test
    void onceTheHoldIsCaughtUpAndItsJobsFinishedTheCommitPassesIt() throws InterruptedException {
        f.append(P0, 0, "flood", "flood", "flood", "flood", "quiet", "quiet");
        f.turn();
        f.finishAll();
        f.turn();

        assertThat(f.catchUp()).isEqualTo(1);
        f.turn();
        assertThat(f.buffered(P0)).containsExactly(2L, 3L);
        assertThat(f.consumer.readAhead().holding()).isFalse();
        assertThat(f.committed(P0)).isEqualTo(2);

        f.finishAll();
        f.turn();
        assertThat(f.committed(P0)).isEqualTo(6);
    }
}
