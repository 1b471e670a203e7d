package com.fairpix.core.resilience;

import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;
import com.fairpix.core.job.JobStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A {@link JobStore} whose calls go through the Redis circuit breaker: while it is open they fail
 * at once with {@link io.github.resilience4j.circuitbreaker.CallNotPermittedException}, so a worker
 * whose Redis hangs stops sending every job into a socket timeout and pauses instead (the
 * breaker's state is what its {@code dependencyDown} reads). Only outages ({@link Outages}) count
 * as failures; any other exception (a refused command, a bug) passes through uncounted, so it
 * cannot open a farm-wide breaker.
 */
public final class GuardedJobStore implements JobStore {
    private final JobStore delegate;
    private final CircuitBreaker breaker;

    private final java.util.function.LongSupplier nanos;

    /** @param nanos monotonic clock, nanoseconds: each call's duration, for the slow-call rate */
    public GuardedJobStore(JobStore delegate, CircuitBreaker breaker, java.util.function.LongSupplier nanos) {
        this.delegate = delegate;
        this.breaker = breaker;
        this.nanos = nanos;
    }

    @Override
    public void create(JobRecord job) {
        call(() -> { delegate.create(job); return null; });
    }

    @Override
    public Optional<JobRecord> get(String tenant, String jobId) {
        return call(() -> delegate.get(tenant, jobId));
    }

    @Override
    public Optional<String> tenantOf(String jobId) {
        return call(() -> delegate.tenantOf(jobId));
    }

    @Override
    public Transition transition(JobRecord next, Set<JobState> from) {
        return call(() -> delegate.transition(next, from));
    }

    @Override
    public void markEventSent(JobRecord job) {
        call(() -> { delegate.markEventSent(job); return null; });
    }

    @Override
    public boolean eventSent(JobRecord job) {
        return call(() -> delegate.eventSent(job));
    }

    @Override
    public Page list(String tenant, String cursor, int limit, long maxBytes) {
        return call(() -> delegate.list(tenant, cursor, limit, maxBytes));
    }

    private <T> T call(Supplier<T> body) {
        breaker.acquirePermission();
        long start = nanos.getAsLong();
        T result;
        try {
            result = body.get();
        } catch (RuntimeException | Error e) {
            long took = nanos.getAsLong() - start;
            if (Outages.is(e)) breaker.onError(took, java.util.concurrent.TimeUnit.NANOSECONDS, e);
            else breaker.releasePermission();
            throw e;
        }
        breaker.onSuccess(nanos.getAsLong() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
        return result;
    }
}
