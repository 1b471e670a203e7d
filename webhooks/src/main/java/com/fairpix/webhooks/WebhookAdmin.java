package com.fairpix.webhooks;

import com.fairpix.core.tenant.Tenant;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The webhook operations behind the admin API: the URL check at registration, signing secrets (a
 * tenant's first, and rotation with an overlap), listing a tenant's deliveries, and redelivering one
 * or replaying the dead-lettered ones. Knows nothing of HTTP; the ingest-api's handlers parse,
 * call these and render.
 */
public final class WebhookAdmin {
    private final DeliveryStore deliveries;
    private final TenantUpdates tenants;
    private final UrlGuard guard;
    private final Duration secretOverlap;
    private final Clock clock;

    /** Changes a tenant record atomically ({@code TenantStore::update} in production). */
    @FunctionalInterface
    public interface TenantUpdates {
        /** @return the tenant as changed; empty when it does not exist */
        Optional<Tenant> update(String tenantId, UnaryOperator<Tenant> change);
    }

    /** A secret rotation: the new secret, and until when the previous one still signs (null when there was none). */
    public record Rotation(String tenant, String secret, Instant previousValidUntil) {}

    /** A page of deliveries, newest first; {@code nextBefore} (epoch ms) asks for the next page, null on the last. */
    public record Page(List<WebhookDelivery> deliveries, Long nextBefore) {}

    /**
     * @param tenants       where a rotation stores the tenant's new secret
     * @param guard         checks URLs at registration (the dispatcher checks again before every attempt)
     * @param secretOverlap how long the previous secret still signs after a rotation
     */
    public WebhookAdmin(DeliveryStore deliveries, TenantUpdates tenants, UrlGuard guard, Duration secretOverlap, Clock clock) {
        this.deliveries = deliveries;
        this.tenants = tenants;
        this.guard = guard;
        this.secretOverlap = secretOverlap;
        this.clock = clock;
    }

    /**
     * Checks a webhook URL being registered for a tenant or a job.
     *
     * @throws UrlGuard.RefusedException saying why the URL is refused and what to change
     */
    public void checkUrl(String url) {
        guard.check(url);
    }

    /** A signing secret for a new tenant. */
    public String newSecret() {
        return WebhookSecrets.generate();
    }

    /** {@code t}, given a secret if it has a webhook URL and no secret yet (a tenant from before webhooks setting its first URL). */
    public Tenant withSecretIfNeeded(Tenant t) {
        return t.webhookUrl() != null && t.webhookSecret() == null ? t.withWebhookSecret(WebhookSecrets.generate()) : t;
    }

    /** The tenant's webhook URL changed: a new URL is a new endpoint, so a 410 from an old one no longer applies. */
    public void urlChanged(String tenantId) {
        deliveries.enableAll(tenantId);
    }

    /**
     * Gives the tenant a new signing secret; the previous one keeps signing beside it for the overlap.
     *
     * @return empty when the tenant does not exist
     */
    public Optional<Rotation> rotateSecret(String tenantId) {
        String fresh = WebhookSecrets.generate();
        String[] previous = new String[1];
        Optional<Tenant> updated = tenants.update(tenantId, t -> {
            previous[0] = t.webhookSecret();
            return t.withWebhookSecret(fresh);
        });
        if (updated.isEmpty()) return Optional.empty();
        deliveries.keepPreviousSecret(tenantId, previous[0], secretOverlap);
        return Optional.of(new Rotation(tenantId, fresh, previous[0] == null ? null : clock.instant().plus(secretOverlap)));
    }

    /** The tenant's deliveries created before {@code beforeMillis} (epoch ms, exclusive; null = now), newest first, at most {@code limit}. */
    public Page list(String tenantId, Long beforeMillis, int limit) {
        List<WebhookDelivery> page = deliveries.list(tenantId, beforeMillis, limit);
        return new Page(page, page.size() == limit ? page.getLast().createdAt().toEpochMilli() : null);
    }

    public Optional<WebhookDelivery> delivery(String tenantId, String deliveryId) {
        return deliveries.get(tenantId, deliveryId);
    }

    /**
     * Sends the delivery again now, under the same {@code webhook-id} with a fresh timestamp and
     * signature; a new retry series starts and its endpoint is enabled again (an operator asking
     * for a redelivery vouches for it).
     *
     * @return the delivery as queued
     */
    public WebhookDelivery redeliver(WebhookDelivery d) {
        WebhookDelivery again = d.redeliver(clock.instant());
        deliveries.save(again);
        deliveries.clearDead(d.tenant(), d.id());
        deliveries.enable(d.tenant(), d.url());
        deliveries.schedule(d.tenant(), d.id(), again.nextAttemptAt());
        return again;
    }

    /** Redelivers every delivery of the tenant dead-lettered at or after {@code since}; returns their ids. */
    public List<String> replayFailed(String tenantId, Instant since) {
        List<String> replayed = new ArrayList<>();
        for (String id : deliveries.deadSince(tenantId, since)) {
            deliveries.get(tenantId, id).ifPresent(d -> replayed.add(redeliver(d).id()));
        }
        return replayed;
    }
}
