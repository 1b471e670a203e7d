package com.fairpix.worker.consume;

import static com.fairpix.worker.consume.ConsumptionFixture.P0;
import static com.fairpix.worker.consume.ConsumptionFixture.P1;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The poll loop's own steps on a {@code MockConsumer}: a job to run again rewinds its partition,
 * and a dependency down pauses every partition. (Commits: {@link CommitBelowHoldTest}; rebalances:
 * {@link RebalanceTest}; suspended tenants: {@link HeldSweepTest}.)
 */
class PollLoopTest {
    private final ConsumptionFixture f = new ConsumptionFixture(16).assigned(P0, P1);

    @Test
    void aJobToRunAgainRewindsItsPartitionToItAndDropsWhatWasBufferedAfterIt() {
        f.append(P0, 0, "a", "b", "c");
        f.append(P1, 0, "d");
        f.turn();

        f.redeliver(P0, 1);
        f.turn();

        assertThat(f.kafka.position(P0)).isEqualTo(1);
        assertThat(f.buffered(P0)).containsExactly(0L);
        assertThat(f.buffered(P1)).containsExactly(0L);
        assertThat(f.consumer.readAhead().records()).isEqualTo(2);

        f.replay(P0, 1);
        f.turn();
        assertThat(f.buffered(P0)).containsExactly(0L, 1L, 2L);
        f.finishAll();
        f.turn();
        assertThat(f.committed(P0)).isEqualTo(3);
    }

    @Test
    void whileADependencyIsDownEveryPartitionIsPausedAndNothingIsRead() {
        AtomicBoolean down = new AtomicBoolean(true);
        f.consumer.dependencyDown(down::get);
        f.append(P0, 0, "a");
        f.turn();

        assertThat(f.kafka.paused()).containsExactlyInAnyOrder(P0, P1);
        assertThat(f.buffered(P0)).isEmpty();

        down.set(false);
        f.turn();
        assertThat(f.kafka.paused()).isEmpty();
        f.turn();
        assertThat(f.buffered(P0)).containsExactly(0L);
    }
}
