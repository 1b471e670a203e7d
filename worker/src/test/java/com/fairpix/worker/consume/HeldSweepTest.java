package com.fairpix.worker.consume;

import static com.fairpix.worker.consume.ConsumptionFixture.P0;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Suspended tenants on a {@code MockConsumer}: jobs buffered before the suspension are swept out to
 * the parking list ({@link HeldSweep}), those read after it are parked on arrival, and either way
 * their offsets stop holding back the partition's commits; a job that cannot be parked stays.
 */
class HeldSweepTest {
    private final ConsumptionFixture f = new ConsumptionFixture(16).assigned(P0);

    @Test
    void aSuspendedTenantsBufferedJobsAreParkedAndNoLongerHoldBackTheCommit() {
        f.append(P0, 0, "s", "s", "a");
        f.turn();
        assertThat(f.buffered(P0)).containsExactly(0L, 1L, 2L);

        f.suspended.add("s");
        f.clock.advance(Duration.ofNanos(HeldSweep.INTERVAL_NANOS));
        f.turn();

        assertThat(f.parked).containsExactly("job-0-0", "job-0-1");
        assertThat(f.buffered(P0)).containsExactly(2L);
        assertThat(f.consumer.readAhead().records("s")).isZero();
        assertThat(f.committed(P0)).isEqualTo(2);
    }

    @Test
    void theSweepRunsAtMostOncePerInterval() {
        f.append(P0, 0, "s", "a");
        f.turn(); // sweeps: nobody suspended yet
        f.suspended.add("s");

        f.turn();
        assertThat(f.parked).isEmpty();

        f.clock.advance(Duration.ofNanos(HeldSweep.INTERVAL_NANOS));
        f.turn();
        assertThat(f.parked).containsExactly("job-0-0");
    }

    @Test
    void aJobThatCannotBeParkedStaysBufferedAndHoldsTheCommit() {
        f.append(P0, 0, "s", "a");
        f.turn();
        f.suspended.add("s");
        f.parkingDown = true;
        f.clock.advance(Duration.ofNanos(HeldSweep.INTERVAL_NANOS));
        f.turn();

        assertThat(f.parked).isEmpty();
        assertThat(f.buffered(P0)).containsExactly(0L, 1L);
        assertThat(f.consumer.readAhead().records("s")).isEqualTo(1);
        assertThat(f.committed(P0)).isEqualTo(-1);

        f.parkingDown = false;
        f.clock.advance(Duration.ofNanos(HeldSweep.INTERVAL_NANOS));
        f.turn();
        assertThat(f.parked).containsExactly("job-0-0");
        assertThat(f.committed(P0)).isEqualTo(1);
    }

    @Test
    void aSuspendedTenantsJobReadAfterTheSuspensionIsParkedOnArrival() {
        f.suspended.add("s");
        f.append(P0, 0, "s", "a");
        f.turn();

        assertThat(f.parked).containsExactly("job-0-0");
        assertThat(f.buffered(P0)).containsExactly(1L);
        f.turn();
        assertThat(f.committed(P0)).isEqualTo(1);
    }
}
