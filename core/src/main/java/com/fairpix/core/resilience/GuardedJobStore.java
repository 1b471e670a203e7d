package com.fairpix.core.resilience;

import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;
import com.fairpix.core.job.JobStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.Optional;
import java.util.Set;

/**
 * A {@link JobStore} whose calls go through the Redis circuit breaker: while it is open they fail
 * at once with {@link io.github.resilience4j.circuitbreaker.CallNotPermittedException}, so a worker
 * whose Redis hangs stops sending every job into a socket timeout and pauses instead (the
 * breaker's state is what its {@code dependencyDown} reads). Only outages ({@link Outages}) count
 * as failures; any other exception (a refused command, a bug) passes through uncounted, so it
 * cannot open a farm-wide breaker: the breaker's own config says so ({@link Breakers#ignored}).
 */
public final class GuardedJobStore implements JobStore {
    private final JobStore delegate;
    private final CircuitBreaker breaker;

    /**
     * @param breaker the Redis breaker ({@link Breakers#get}): it times each call by its own clock,
     *                for the slow-call rate, and ignores whatever is not an outage
     */
    public GuardedJobStore(JobStore delegate, CircuitBreaker breaker) {
        this.delegate = delegate;
        this.breaker = breaker;
    }

    @Override
    public void create(JobRecord job) {
        breaker.executeRunnable(() -> delegate.create(job));
    }

    @Override
    public Optional<JobRecord> get(String tenant, String jobId) {
        return breaker.executeSupplier(() -> delegate.get(tenant, jobId));
    }

    @Override
    public Optional<String> tenantOf(String jobId) {
        return breaker.executeSupplier(() -> delegate.tenantOf(jobId));
    }

    @Override
    public Transition transition(JobRecord next, Set<JobState> from) {
        return breaker.executeSupplier(() -> delegate.transition(next, from));
    }

    @Override
    public void markEventSent(JobRecord job) {
        breaker.executeRunnable(() -> delegate.markEventSent(job));
    }

    @Override
    public boolean eventSent(JobRecord job) {
        return breaker.executeSupplier(() -> delegate.eventSent(job));
    }

    @Override
    public Page list(String tenant, String cursor, int limit, long maxBytes) {
        return breaker.executeSupplier(() -> delegate.list(tenant, cursor, limit, maxBytes));
    }
}
