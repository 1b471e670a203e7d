package com.fairpix.worker.consume;

import static com.fairpix.worker.consume.ConsumptionFixture.P0;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The catch-up thread's rounds ({@link CatchUpLoop}) run by hand against a fake fetcher: a hold is
 * fetched once its tenant has room, and not again until the poll loop has applied the fetch; a hold
 * whose fetch failed is fetched again.
 */
class CatchUpLoopTest {
    /** Two records of one tenant buffered at most: the flood's third record puts it on hold. */
    private final ConsumptionFixture f = new ConsumptionFixture(2).assigned(P0);

    @Test
    void aHoldIsFetchedOnlyOnceItsTenantHasRoom() throws InterruptedException {
        f.append(P0, 0, "flood", "flood", "flood", "flood", "flood");
        f.turn();
        assertThat(f.catchUp()).as("two of the flood's jobs still buffered").isZero();

        f.finish(P0, 0, 1);
        f.turn();
        assertThat(f.catchUp()).isEqualTo(1);

        f.turn();
        assertThat(f.buffered(P0)).containsExactly(2L, 3L);
        assertThat(f.consumer.readAhead().holding()).as("offset 4 is still held back").isTrue();
        assertThat(f.committed(P0)).isEqualTo(2);
    }

    @Test
    void aHoldWhoseFetchFailedIsFetchedAgainOnceThePollLoopHasAppliedTheFailure() throws InterruptedException {
        f.append(P0, 0, "flood", "flood", "flood", "flood");
        f.turn();
        f.finish(P0, 0, 1);
        f.turn();

        f.duringFetch = () -> {
            throw new IllegalStateException("broker away");
        };
        assertThat(f.catchUp()).isEqualTo(1);
        assertThat(f.catchUp()).as("claimed until the poll loop has applied the failed fetch").isZero();
        f.turn();
        assertThat(f.buffered(P0)).isEmpty();
        assertThat(f.consumer.readAhead().records("flood")).isZero();
        assertThat(f.consumer.readAhead().holding()).isTrue();

        assertThat(f.catchUp()).isEqualTo(1);
        f.turn();
        assertThat(f.buffered(P0)).containsExactly(2L, 3L);
        assertThat(f.consumer.readAhead().holding()).isFalse();
    }
}
