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
    /** A queued job: its tenant, its estimated cost in cost units (megapixels × operations), the payload. */
    record Item<T>(String tenant, double cost, T payload) {}

    void add(Item<T> item);

    /** The next job to run, or null when none may run now (empty, or every tenant at its running cap). */
    Item<T> poll();

    /** Waits up to {@code timeout} for a job that may run; null when none came. */
    Item<T> take(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * Reports that a job taken from this scheduler has finished.
     *
     * @param costCorrection actual minus estimated cost, in cost units, charged to the tenant
     */
    void finished(String tenant, double costCorrection);

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
