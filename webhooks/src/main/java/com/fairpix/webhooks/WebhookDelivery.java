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
 * @param deferrals     times in a row the delivery was due but put off unattempted (its tenant or
 *                      endpoint busy, its endpoint's breaker open): each put-off waits longer; an
 *                      attempt starts the count again. Not attempts: the retry series does not move
 * @param reason        why the delivery was dead-lettered without an attempt (its tenant had too many
 *                      pending), else null
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
        List<Attempt> attempts,
        int deferrals,
        String reason) {
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
        return new WebhookDelivery(id, tenant, jobId, eventType, url, payload, Status.PENDING, 0, 0, now, now, List.of(), 0, null);
    }

    /** This delivery with {@code attempt} recorded, in {@code status}, next due at {@code next}. */
    public WebhookDelivery attempted(Attempt attempt, Status newStatus, Instant next) {
        List<Attempt> all = new ArrayList<>(attempts);
        all.add(attempt);
        if (all.size() > MAX_KEPT_ATTEMPTS) all = all.subList(all.size() - MAX_KEPT_ATTEMPTS, all.size());
        return new WebhookDelivery(id, tenant, jobId, eventType, url, payload, newStatus, seriesAttempt + 1, totalAttempts + 1, createdAt, next, all, 0, null);
    }

    /** Put off unattempted until {@code next}: one more deferral, the retry series unchanged. */
    public WebhookDelivery deferred(Instant next) {
        return new WebhookDelivery(id, tenant, jobId, eventType, url, payload, status, seriesAttempt, totalAttempts, createdAt, next, attempts, deferrals + 1, reason);
    }

    /** Dead-lettered without an attempt, saying why. */
    public WebhookDelivery refused(String why) {
        return new WebhookDelivery(id, tenant, jobId, eventType, url, payload, Status.DEAD, seriesAttempt, totalAttempts, createdAt, null, attempts, deferrals, why);
    }

    /** Set back to PENDING for a manual redelivery: a new retry series, due at {@code now}. */
    public WebhookDelivery redeliver(Instant now) {
        return new WebhookDelivery(id, tenant, jobId, eventType, url, payload, Status.PENDING, 0, totalAttempts, createdAt, now, attempts, 0, null);
    }

    public WebhookDelivery withStatus(Status newStatus) {
        return new WebhookDelivery(id, tenant, jobId, eventType, url, payload, newStatus, seriesAttempt, totalAttempts, createdAt, null, attempts, deferrals, reason);
    }
}
