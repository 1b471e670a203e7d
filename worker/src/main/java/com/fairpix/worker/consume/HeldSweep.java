package com.fairpix.worker.consume;

import com.fairpix.worker.schedule.JobScheduler;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Moves buffered jobs of tenants suspended since they arrived out to the parking store, so that a
 * suspended tenant's backlog neither fills the buffer nor holds back its partition's commits: a
 * parked job's offset counts as finished. A job that cannot be parked (the store is down) goes back
 * into the buffer, counted whatever the read-ahead's limits say, since it was admitted once. Poll
 * thread only (it marks offsets in the {@link OffsetTracker}).
 */
final class HeldSweep {
    /** Between two sweeps: how long a newly suspended tenant's buffered jobs may wait to be parked. */
    static final long INTERVAL_NANOS = 500_000_000L;

    private final JobScheduler<Delivery> scheduler;
    private final Predicate<String> held;
    private final Intake intake;
    private final ReadAhead readAhead;
    private final OffsetTracker offsets;
    private final LongSupplier nanos;
    private long lastSweep;

    /**
     * @param held  true for a tenant whose jobs must not run now (suspended)
     * @param nanos monotonic clock, nanoseconds: the interval between sweeps
     */
    HeldSweep(JobScheduler<Delivery> scheduler, Predicate<String> held, Intake intake, ReadAhead readAhead, OffsetTracker offsets,
              LongSupplier nanos) {
        this.scheduler = scheduler;
        this.held = held;
        this.intake = intake;
        this.readAhead = readAhead;
        this.offsets = offsets;
        this.nanos = nanos;
    }

    /** Sweeps, unless the last sweep was less than {@link #INTERVAL_NANOS} ago. */
    void sweep() {
        long now = nanos.getAsLong();
        if (now - lastSweep < INTERVAL_NANOS) return;
        lastSweep = now;
        for (Delivery d : scheduler.drainIf(d -> held.test(d.message().tenant()))) {
            intake.unbuffered(d);
            if (intake.park(d)) {
                offsets.done(d.partition(), d.offset());
            } else {
                readAhead.reserveAnyway(d.partition(), d.message().tenant(), d.bytes(), d.enqueuedAt().toEpochMilli());
                scheduler.add(new JobScheduler.Item<>(d.message().tenant(), d.message().schedulingCost(), d));
            }
        }
    }
}
