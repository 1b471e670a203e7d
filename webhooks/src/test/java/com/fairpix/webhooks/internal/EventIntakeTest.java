package com.fairpix.webhooks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.job.JobEvent;
import com.fairpix.core.job.JobState;
import com.fairpix.core.json.Json;
import com.fairpix.webhooks.InMemoryDeliveryStore;
import com.fairpix.core.time.ManualClock;
import com.fairpix.webhooks.DispatchEvent;
import com.fairpix.webhooks.WebhookDelivery;
import java.util.ArrayList;
import java.util.List;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which events become deliveries, to which URL, and that an event read twice is delivered once. */
class EventIntakeTest {
    final InMemoryDeliveryStore deliveries = new InMemoryDeliveryStore();
    final FakeTenants tenants = new FakeTenants();
    final ManualClock clock = new ManualClock(Instant.parse("2026-01-31T12:00:00Z"));
    final Map<String, String> jobUrls = new java.util.HashMap<>();
    final List<DispatchEvent> events = new ArrayList<>();
    final EventIntake intake = new EventIntake(deliveries, tenants, (tenant, job) -> Optional.ofNullable(jobUrls.get(job)), clock, 2, events::add);

    static byte[] event(String type, String tenant, String job) {
        return Json.writeBytes(new JobEvent(JobEvent.SCHEMA_VERSION, "evt_" + job, type, Instant.parse("2026-01-31T11:59:59Z"), job, tenant,
                type.equals("job.failed") ? JobState.FAILED : JobState.DONE, Map.of(), null, 2));
    }

    @Test
    void aCompletionBecomesADeliveryToTheTenantsUrlDueNow() {
        tenants.add("acme", "https://hooks.example.com/acme", null);
        assertThat(intake.accept(event("job.succeeded", "acme", "j1"))).isTrue();
        WebhookDelivery d = deliveries.get("acme", "evt_j1").orElseThrow();
        assertThat(d.url()).isEqualTo("https://hooks.example.com/acme");
        assertThat(d.status()).isEqualTo(WebhookDelivery.Status.PENDING);
        assertThat(d.eventType()).isEqualTo("job.succeeded");
        assertThat(d.createdAt()).isEqualTo(clock.instant());
        assertThat(deliveries.due).containsEntry("acme/evt_j1", clock.instant().toEpochMilli());
        assertThat(d.payload()).isEqualTo(new String(Payloads.of(Json.read(event("job.succeeded", "acme", "j1"), JobEvent.class)), StandardCharsets.UTF_8));
    }

    @Test
    void theJobsOwnUrlWinsOverTheTenants() {
        tenants.add("acme", "https://hooks.example.com/acme", null);
        jobUrls.put("j2", "https://other.example.com/j2");
        intake.accept(event("job.failed", "acme", "j2"));
        assertThat(deliveries.get("acme", "evt_j2").orElseThrow().url()).isEqualTo("https://other.example.com/j2");
    }

    @Test
    void nothingIsStoredForOtherEventsUnknownTenantsNoUrlOrAnUnreadableRecord() {
        tenants.add("acme", "https://hooks.example.com/acme", null);
        tenants.add("quiet", null, null);
        assertThat(intake.accept(event("job.started", "acme", "j3"))).isFalse();
        assertThat(intake.accept(event("job.succeeded", "nobody", "j4"))).isFalse();
        assertThat(intake.accept(event("job.succeeded", "quiet", "j5"))).isFalse();
        assertThat(intake.accept("{not json".getBytes(StandardCharsets.UTF_8))).isFalse();
        assertThat(deliveries.pending()).isZero();
    }

    @Test
    void anEventReadTwiceIsOneDelivery() {
        tenants.add("acme", "https://hooks.example.com/acme", null);
        assertThat(intake.accept(event("job.succeeded", "acme", "j6"))).isTrue();
        clock.advance(java.time.Duration.ofMinutes(1));
        assertThat(intake.accept(event("job.succeeded", "acme", "j6"))).isFalse();
        assertThat(deliveries.list("acme", null, 10)).hasSize(1);
    }

    @Test
    void pastTheTenantsPendingCapANewDeliveryIsDeadLetteredAtOnceWithTheReason() {
        tenants.add("acme", "https://hooks.example.com/acme", null);
        tenants.add("other", "https://hooks.example.com/other", null);
        assertThat(intake.accept(event("job.succeeded", "acme", "c1"))).isTrue();
        assertThat(intake.accept(event("job.succeeded", "acme", "c2"))).isTrue();
        assertThat(intake.accept(event("job.succeeded", "acme", "c3"))).isTrue();
        WebhookDelivery refused = deliveries.get("acme", "evt_c3").orElseThrow();
        assertThat(refused.status()).isEqualTo(WebhookDelivery.Status.DEAD);
        assertThat(refused.reason()).contains("2 deliveries waiting", "webhooks.max-pending-per-tenant");
        assertThat(refused.attempts()).isEmpty();
        assertThat(deliveries.pending("acme")).as("the cap of 2 holds").isEqualTo(2);
        assertThat(deliveries.deadSince("acme", Instant.EPOCH)).containsExactly("evt_c3");
        assertThat(events).containsExactly(new DispatchEvent.DeadLettered("acme"));
        assertThat(intake.accept(event("job.succeeded", "other", "c4"))).isTrue();
        assertThat(deliveries.get("other", "evt_c4").orElseThrow().status()).as("the cap is per tenant").isEqualTo(WebhookDelivery.Status.PENDING);
    }
}
