package com.fairpix.webhooks;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One event's delivery to one endpoint, and every attempt at it. The payload is stored as the exact
 * text sent, so every attempt (and every redelivery) sends the same bytes under the same
 * {@code webhook-id}; only {@code webhook-timestamp} and the signature change.
 *
 * @param id            the {@code webhook-id}: the job event's stable id, one per (job, final state)
 * @param seriesAttempt attempts in the current retry series (a manual redelivery starts a new series)
 * @param nextAttemptAt when the next attempt is due; null unless PENDING
 * @param attempts      the most recent attempts, oldest first (at most {@link #MAX_KEPT_ATTEMPTS})
 */
public record WebhookDelivery(
        String id,
        String tenant,
        String jobId,
        String eventType,
        String url,
        String payload,
        Status status,
        int seriesAttempt,
        int totalAttempts,
        Instant createdAt,
        Instant nextAttemptAt,
        List<Attempt> attempts) {
    public static final int MAX_KEPT_ATTEMPTS = 50;

    public enum Status { PENDING, SUCCEEDED, DEAD, DISABLED }

    /**
     * One attempt: when, the HTTP status (null when none came back) or the error class, and how long
     * it took in milliseconds. Never the response body.
     *
     * @param manual made because an operator asked (redeliver, replay)
     */
    public record Attempt(Instant at, Integer statusCode, String error, long durationMillis, boolean manual) {}

    public WebhookDelivery {
        attempts = attempts == null ? List.of() : List.copyOf(attempts);
    }

    public static WebhookDelivery pending(String id, String tenant, String jobId, String eventType, String url, String payload, Instant now) {
        return new WebhookDelivery(id, tenant, jobId, eventType, url, payload, Status.PENDING, 0, 0, now, now, List.of());
    }

    /** This delivery with {@code attempt} recorded, in {@code status}, next due at {@code next}. */
    public WebhookDelivery attempted(Attempt attempt, Status newStatus, Instant next) {
        List<Attempt> all = new ArrayList<>(attempts);
        all.add(attempt);
        if (all.size() > MAX_KEPT_ATTEMPTS) all = all.subList(all.size() - MAX_KEPT_ATTEMPTS, all.size());
        return new WebhookDelivery(id, tenant, jobId, eventType, url, payload, newStatus, seriesAttempt + 1, totalAttempts + 1, createdAt, next, all);
    }

    /** Set back to PENDING for a manual redelivery: a new retry series, due at {@code now}. */
    public WebhookDelivery redeliver(Instant now) {
        return new WebhookDelivery(id, tenant, jobId, eventType, url, payload, Status.PENDING, 0, totalAttempts, createdAt, now, attempts);
    }

    public WebhookDelivery withStatus(Status newStatus) {
        return new WebhookDelivery(id, tenant, jobId, eventType, url, payload, newStatus, seriesAttempt, totalAttempts, createdAt, null, attempts);
    }
}
