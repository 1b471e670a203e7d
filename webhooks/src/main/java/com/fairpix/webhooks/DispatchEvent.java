package com.fairpix.webhooks;

import java.time.Duration;

/** What a {@link WebhookDispatcher} reports as it works; {@link DispatcherMetrics} turns these into meters. */
public sealed interface DispatchEvent {
    /** The tenant whose delivery this is about. */
    String tenant();

    /** An attempt was made: its outcome and how long it took. */
    record Attempted(String tenant, Outcome outcome, Duration elapsed) implements DispatchEvent {}

    /** A due delivery was put back without an attempt, to be looked at again a little later. */
    record Deferred(String tenant, Reason reason) implements DispatchEvent {}

    /** A delivery was dead-lettered after its last attempt, or its endpoint answered 410 Gone. */
    record DeadLettered(String tenant) implements DispatchEvent {}

    /** How an attempt ended; {@code label} is the {@code outcome} label of {@code fairpix.webhook.attempts}. */
    enum Outcome {
        SUCCESS("success"), GONE("gone"), REFUSED("refused"), FAILURE("failure");

        public final String label;

        Outcome(String label) {
            this.label = label;
        }
    }

    /** Why no attempt was made; {@code label} is the {@code reason} label of {@code fairpix.webhook.deferred}. */
    enum Reason {
        TENANT_BUSY("tenant-busy"), ENDPOINT_BUSY("endpoint-busy"), BREAKER_OPEN("breaker-open");

        public final String label;

        Reason(String label) {
            this.label = label;
        }
    }
}
