package com.fairpix.worker.schedule;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The order in which a worker dispatches buffered jobs to its processing threads. Thread-safe:
 * the poll loop adds, processing threads take and report back.
 *
 * @param <T> the job payload
 */
public interface JobScheduler<T> {
    /**
     * The two kinds of processing slot. A worker runs one thread per slot: {@code SHARED} threads
     * serve every tenant in the scheduler's order, at background CPU priority; a {@code RESERVED}
     * thread runs at normal priority and only takes a job the scheduler reserves it for (see
     * {@link FairScheduler}).
     */
    enum Slot { SHARED, RESERVED }

    /**
     * A job: its tenant, its estimated cost in cost units (tokens, {@link com.fairpix.core.job.JobCost}), the payload,
     * and the kind of slot it was dispatched to ({@code SHARED} while it is queued).
     */
    record Item<T>(String tenant, double cost, T payload, Slot slot) {
        public Item(String tenant, double cost, T payload) {
            this(tenant, cost, payload, Slot.SHARED);
        }

        Item<T> on(Slot s) {
            return s == slot ? this : new Item<>(tenant, cost, payload, s);
        }
    }

    void add(Item<T> item);

    /**
     * The next job to run on a free slot (a shared one first, else a reserved one), or null when none
     * may run now (empty, every tenant at its running cap, or no slot free).
     */
    Item<T> poll();

    /** Waits up to {@code timeout} for a job that may run on a shared slot; null when none came. */
    default Item<T> take(long timeout, TimeUnit unit) throws InterruptedException {
        return take(timeout, unit, Slot.SHARED);
    }

    /** Waits up to {@code timeout} for a job that may run on a slot of the given kind; null when none came. */
    Item<T> take(long timeout, TimeUnit unit, Slot slot) throws InterruptedException;

    /**
     * Reports that a job taken from this scheduler has finished, which frees its slot.
     *
     * @param item           the item as {@link #poll} or {@link #take} returned it
     * @param costCorrection actual minus estimated cost, in cost units, charged to the tenant
     */
    void finished(Item<T> item, double costCorrection);

    /**
     * Frees the slot of a job that goes on without a processing thread (its writes run elsewhere):
     * another job may take the thread, while the job still counts against its tenant's running
     * cap until {@link #finished}, which then frees nothing more. A scheduler without slots or caps
     * does nothing.
     *
     * @param item the item as {@link #poll} or {@link #take} returned it, not yet finished
     */
    default void releaseSlot(Item<T> item) {}

    /** Removes and returns the queued payloads matching {@code filter}. */
    List<T> drainIf(Predicate<T> filter);

    /** Drops queued payloads matching {@code filter}; returns how many. */
    default int removeIf(Predicate<T> filter) {
        return drainIf(filter).size();
    }

    /** Jobs queued (not running). */
    int size();

    /** Tenants with queued jobs right now. */
    java.util.Set<String> backlogged();
}
