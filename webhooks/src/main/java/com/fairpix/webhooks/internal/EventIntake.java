package com.fairpix.webhooks.internal;

import com.fairpix.core.job.JobEvent;
import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.Topics;
import com.fairpix.core.config.Setting;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.webhooks.DispatchEvent;
import com.fairpix.webhooks.DeliveryStore;
import com.fairpix.webhooks.WebhookDelivery;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one job event into a stored delivery, due now: only completions ({@code job.succeeded},
 * {@code job.failed}) of a known tenant, to the job's own webhook URL or else the tenant's, and
 * none when neither is set. The event id is the delivery id, so an event consumed twice (a re-run
 * job, a redelivered Kafka record) yields one delivery. A tenant that already has
 * {@code maxPending} deliveries waiting (its endpoints down or a tarpit) gets the new one
 * dead-lettered at once, with the reason: the farm's due work stays bounded per tenant, and the
 * tenant can replay what it missed once its endpoint answers.
 */
final class EventIntake {
    private static final Logger log = LoggerFactory.getLogger(EventIntake.class);

    private final DeliveryStore deliveries;
    private final DispatchTenants tenants;
    private final BiFunction<String, String, Optional<String>> jobUrl;
    private final Clock clock;
    private final long maxPending;
    private final Consumer<DispatchEvent> events;

    /**
     * @param jobUrl     (tenant, job id) → the job's own {@code webhookUrl}; empty when it set none or is gone
     * @param maxPending deliveries a tenant may have waiting ({@code webhooks.max-pending-per-tenant})
     * @param events     told of deliveries dead-lettered over the cap
     */
    EventIntake(DeliveryStore deliveries, DispatchTenants tenants, BiFunction<String, String, Optional<String>> jobUrl, Clock clock,
                long maxPending, Consumer<DispatchEvent> events) {
        this.deliveries = deliveries;
        this.tenants = tenants;
        this.jobUrl = jobUrl;
        this.clock = clock;
        this.maxPending = maxPending;
        this.events = events;
    }

    /** The reason a delivery over the cap is dead-lettered with. */
    static String overCap(long maxPending) {
        return "not queued: the tenant already had " + maxPending + " deliveries waiting (" + Setting.WEBHOOKS_MAX_PENDING_PER_TENANT.key()
                + "); replay it once the endpoint answers";
    }

    /**
     * Stores the delivery for one {@code fairpix.events} record value; an unreadable value is logged and skipped.
     *
     * @return whether a new delivery was stored (queued, or dead-lettered over the cap)
     * @throws RuntimeException when the store cannot be reached (the caller reads the record again later)
     */
    boolean accept(byte[] value) {
        JobEvent event;
        try {
            event = Json.read(value, JobEvent.class);
        } catch (RuntimeException e) {
            log.warn("skipping an unreadable event on {}: {}", Topics.EVENTS, e.getMessage());
            return false;
        }
        if (!event.type().equals(JobEvent.SUCCEEDED) && !event.type().equals(JobEvent.FAILED)) return false;
        Optional<Tenant> tenant = tenants.byId(event.tenant());
        if (tenant.isEmpty()) return false;
        String url = jobUrl.apply(event.tenant(), event.jobId()).orElse(tenant.get().webhookUrl());
        if (url == null || url.isBlank()) return false;
        String payload = new String(Payloads.of(event), StandardCharsets.UTF_8);
        WebhookDelivery d = WebhookDelivery.pending(event.eventId(), event.tenant(), event.jobId(), event.type(), url, payload, clock.instant());
        switch (deliveries.create(d, maxPending)) {
            case QUEUED -> {
                log.debug("delivery {} of tenant {} queued", event.eventId(), event.tenant());
                return true;
            }
            case OVER_CAP -> {
                deliveries.save(d.refused(overCap(maxPending)));
                deliveries.markDead(d.tenant(), d.id(), clock.instant());
                events.accept(new DispatchEvent.DeadLettered(d.tenant()));
                log.info("delivery {} of tenant {} dead-lettered: {} deliveries already waiting", d.id(), d.tenant(), maxPending);
                return true;
            }
            default -> {
                return false;
            }
        }
    }
}
