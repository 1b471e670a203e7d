package com.fairpix.worker.consume;

import static com.fairpix.worker.consume.ConsumptionFixture.P0;
import static com.fairpix.worker.consume.ConsumptionFixture.P1;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rebalance listener ({@link Handover}) on a {@code MockConsumer}: a partition taken from the
 * worker is handed over with what is finished committed and nothing else, even while a catch-up of
 * it is under way on the catch-up thread.
 */
class RebalanceTest {
    /** Two records of one tenant buffered at most: the flood's third record puts it on hold. */
    private final ConsumptionFixture f = new ConsumptionFixture(2).assigned(P0, P1);

    @Test
    void whatACatchUpFetchedForAPartitionRevokedMeanwhileIsDroppedAndNeverCommitted() throws InterruptedException {
        // P0: flood 0, 1 buffered; flood 2, 3 held back from 2; quiet 4 buffered. P1: quiet 0 buffered.
        f.append(P0, 0, "flood", "flood", "flood", "flood", "quiet");
        f.append(P1, 0, "quiet");
        f.turn();
        f.finish(P0, 0, 1);
        f.turn();
        assertThat(f.commits(P0)).containsExactly(2L);

        // The flood has room again: its catch-up fetches P0 from 2, and while the fetch is under way
        // the group takes P0 from this worker (the poll thread's rebalance).
        f.duringFetch = () -> f.kafka.rebalance(List.of(P1));
        assertThat(f.catchUp()).isEqualTo(1);
        assertThat(f.consumer.readAhead().records("flood")).as("fetched for P0 after its revoke, not yet applied").isEqualTo(2);
        f.turn();

        assertThat(f.consumer.owned()).containsExactly(P1);
        assertThat(f.buffered(P0)).isEmpty();
        assertThat(f.consumer.readAhead().records("flood")).isZero();
        assertThat(f.consumer.readAhead().holding()).isFalse();
        // Whatever is still running or buffered finishes; nothing of P0 is committed past what it had.
        f.finishAll();
        f.turn();
        f.turn();
        assertThat(f.commits(P0)).containsExactly(2L);
        assertThat(f.committed(P1)).isEqualTo(1);
    }

    @Test
    void aRevokeCommitsWhatIsFinishedBelowTheHoldAndHandsBackWhatIsBuffered() {
        f.append(P0, 0, "flood", "flood", "flood", "quiet");
        f.turn();
        f.finish(P0, 0, 1, 3);
        // No turn in between: only the revoke's own commit can carry these.

        f.kafka.rebalance(List.of(P1));

        assertThat(f.committed(P0)).isEqualTo(2);
        assertThat(f.buffered(P0)).isEmpty();
        assertThat(f.consumer.lastRevoked()).containsEntry(P0, f.clock.millis());
    }

    @Test
    void aPartitionLostIsHandedOverWithoutACommit() {
        f.append(P0, 0, "a", "b");
        f.turn();
        f.finish(P0, 0, 1);

        f.kafka.losePartitions(List.of(P0));

        assertThat(f.committed(P0)).isEqualTo(-1);
        assertThat(f.consumer.owned()).containsExactly(P1);
    }
}
