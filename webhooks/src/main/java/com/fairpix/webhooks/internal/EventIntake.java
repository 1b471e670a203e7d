package com.fairpix.webhooks.internal;

import com.fairpix.core.job.JobEvent;
import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.Topics;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.webhooks.DeliveryStore;
import com.fairpix.webhooks.WebhookDelivery;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Optional;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one job event into a stored delivery, due now: only completions ({@code job.succeeded},
 * {@code job.failed}) of a known tenant, to the job's own webhook URL or else the tenant's, and
 * none when neither is set. The event id is the delivery id, so an event consumed twice (a re-run
 * job, a redelivered Kafka record) yields one delivery.
 */
final class EventIntake {
    private static final Logger log = LoggerFactory.getLogger(EventIntake.class);

    private final DeliveryStore deliveries;
    private final DispatchTenants tenants;
    private final BiFunction<String, String, Optional<String>> jobUrl;
    private final Clock clock;

    /** @param jobUrl (tenant, job id) → the job's own {@code webhookUrl}; empty when it set none or is gone */
    EventIntake(DeliveryStore deliveries, DispatchTenants tenants, BiFunction<String, String, Optional<String>> jobUrl, Clock clock) {
        this.deliveries = deliveries;
        this.tenants = tenants;
        this.jobUrl = jobUrl;
        this.clock = clock;
    }

    /**
     * Stores the delivery for one {@code fairpix.events} record value; an unreadable value is logged and skipped.
     *
     * @return whether a new delivery was stored
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
        if (!event.type().equals("job.succeeded") && !event.type().equals("job.failed")) return false;
        Optional<Tenant> tenant = tenants.byId(event.tenant());
        if (tenant.isEmpty()) return false;
        String url = jobUrl.apply(event.tenant(), event.jobId()).orElse(tenant.get().webhookUrl());
        if (url == null || url.isBlank()) return false;
        String payload = new String(Payloads.of(event), StandardCharsets.UTF_8);
        boolean created = deliveries.create(WebhookDelivery.pending(event.eventId(), event.tenant(), event.jobId(), event.type(), url, payload, clock.instant()));
        if (created) log.debug("delivery {} of tenant {} queued", event.eventId(), event.tenant());
        return created;
    }
}
