package com.fairpix.webhooks;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * The webhook dispatcher: turns {@code job.succeeded} / {@code job.failed} events from
 * {@code fairpix.events} into signed deliveries to each tenant's endpoint, retried on the
 * {@link RetrySchedule} until they succeed or die. Made by {@link WebhookDispatchers}; run as a
 * service by {@link WebhooksService}.
 *
 * <p>Isolation: each tenant endpoint gets at most {@link DispatcherConfig#endpointConcurrency()}
 * attempts in flight and its own circuit breaker, each tenant at most
 * {@link DispatcherConfig#tenantConcurrency()}, the dispatcher at most
 * {@link DispatcherConfig#maxInFlight()}; a delivery that finds its endpoint or tenant full, or its
 * breaker open, is put back a little later without an attempt, so a slow or dead endpoint holds
 * only its own slots.
 */
public interface WebhookDispatcher extends AutoCloseable {

    /** Subscribes to the events topic and starts taking due deliveries; returns this. */
    WebhookDispatcher start();

    /**
     * Stops taking work; attempts in flight get up to {@code deadline} to finish (an unfinished one
     * is taken again by a dispatcher when its claim ends). Closes the event consumer it was given.
     */
    void stop(Duration deadline);

    /** {@link #stop} with 20 s for the attempts in flight. */
    @Override
    default void close() {
        stop(Duration.ofSeconds(20));
    }

    /** Calls {@code listener} with every {@link DispatchEvent}, on the thread that made it; register before {@link #start}. */
    void onEvent(Consumer<DispatchEvent> listener);

    /**
     * Deliveries waiting for an attempt, due now or later (farm-wide).
     *
     * @throws RuntimeException when the store cannot be read
     */
    long pending();

    /** Whether the last read of the events topic worked (for {@code /health}). */
    boolean consuming();
}
