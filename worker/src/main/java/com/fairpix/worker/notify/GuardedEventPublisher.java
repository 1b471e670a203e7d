package com.fairpix.worker.notify;

import com.fairpix.core.job.JobEvent;
import com.fairpix.core.resilience.Outages;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * An {@link EventPublisher} behind the Kafka circuit breaker: while it is open a publish fails at
 * once ({@link io.github.resilience4j.circuitbreaker.CallNotPermittedException}) instead of waiting
 * out the broker's acknowledgement timeout, and the worker pauses. Only outages ({@link Outages})
 * count as failures: a record Kafka refuses as too large is one tenant's problem.
 */
public final class GuardedEventPublisher implements EventPublisher {
    private final EventPublisher delegate;
    private final CircuitBreaker breaker;
    private final LongSupplier nanos;

    /** @param nanos monotonic clock, nanoseconds: each call's duration, for the slow-call rate */
    public GuardedEventPublisher(EventPublisher delegate, CircuitBreaker breaker, LongSupplier nanos) {
        this.delegate = delegate;
        this.breaker = breaker;
        this.nanos = nanos;
    }

    @Override
    public void publish(JobEvent event) {
        call(() -> delegate.publish(event));
    }

    @Override
    public void deadLetter(String tenant, byte[] message, String reason, String detail) {
        call(() -> delegate.deadLetter(tenant, message, reason, detail));
    }

    private void call(Runnable body) {
        breaker.acquirePermission();
        long start = nanos.getAsLong();
        try {
            body.run();
        } catch (RuntimeException | Error e) {
            if (Outages.is(e)) breaker.onError(nanos.getAsLong() - start, TimeUnit.NANOSECONDS, e);
            else breaker.releasePermission();
            throw e;
        }
        breaker.onSuccess(nanos.getAsLong() - start, TimeUnit.NANOSECONDS);
    }
}
