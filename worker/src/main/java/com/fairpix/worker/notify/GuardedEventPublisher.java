package com.fairpix.worker.notify;

import com.fairpix.core.job.JobEvent;
import com.fairpix.core.resilience.Outages;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

/**
 * An {@link EventPublisher} behind the Kafka circuit breaker: while it is open a publish fails at
 * once ({@link io.github.resilience4j.circuitbreaker.CallNotPermittedException}) instead of waiting
 * out the broker's acknowledgement timeout, and the worker pauses. Only outages ({@link Outages})
 * count as failures: a record Kafka refuses as too large is one tenant's problem.
 */
public final class GuardedEventPublisher implements EventPublisher {
    private final EventPublisher delegate;
    private final CircuitBreaker breaker;

    /**
     * @param breaker the Kafka breaker ({@link com.fairpix.core.resilience.Breakers#get}): it times
     *                each call by its own clock, for the slow-call rate, and ignores whatever is
     *                not an outage
     */
    public GuardedEventPublisher(EventPublisher delegate, CircuitBreaker breaker) {
        this.delegate = delegate;
        this.breaker = breaker;
    }

    @Override
    public void publish(JobEvent event) {
        breaker.executeRunnable(() -> delegate.publish(event));
    }

    @Override
    public void deadLetter(String tenant, byte[] message, String reason, String detail) {
        breaker.executeRunnable(() -> delegate.deadLetter(tenant, message, reason, detail));
    }
}
