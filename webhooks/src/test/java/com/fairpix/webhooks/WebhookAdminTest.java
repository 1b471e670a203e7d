package com.fairpix.webhooks;

import com.fairpix.core.time.ManualClock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.json.Json;
import com.fairpix.core.tenant.Tenant;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** The admin API's webhook operations, on an in-memory store and a clock moved by hand. */
class WebhookAdminTest {
    final InMemoryDeliveryStore deliveries = new InMemoryDeliveryStore();
    final Map<String, Tenant> tenants = new ConcurrentHashMap<>();
    final ManualClock clock = new ManualClock(Instant.parse("2026-01-31T12:00:00Z"));
    final UrlGuard guard = new UrlGuard(false, List.of(), host -> new InetAddress[] {InetAddress.getByName("10.0.0.7")});
    final WebhookAdmin admin = new WebhookAdmin(deliveries, (id, change) -> Optional.ofNullable(tenants.computeIfPresent(id, (k, t) -> change.apply(t))),
            guard, Duration.ofHours(24), clock);

    WebhookDelivery dead(String id, Instant at) {
        WebhookDelivery d = WebhookDelivery.pending(id, "acme", "job-" + id, "job.failed", "https://hooks.example.com/", "{}", at);
        deliveries.create(d);
        WebhookDelivery died = d.attempted(new WebhookDelivery.Attempt(at, 410, null, 5, false), WebhookDelivery.Status.DISABLED, null);
        deliveries.save(died);
        deliveries.unschedule("acme", id);
        deliveries.markDead("acme", id, at);
        deliveries.disable("acme", d.url());
        return died;
    }

    @Test
    void aUrlTheGuardRefusesIsRefusedAtRegistration() {
        assertThatThrownBy(() -> admin.checkUrl("https://internal.example.com/")).isInstanceOf(UrlGuard.RefusedException.class)
                .as("the tenant is not told the internal address its host resolved to").hasMessageNotContaining("10.0.0.7").hasMessageContaining("may not reach");
        assertThatThrownBy(() -> admin.checkUrl("http://hooks.example.com/")).hasMessageContaining("https://");
    }

    @Test
    void aTenantSettingItsFirstUrlGetsASecretAndOneWithoutAUrlDoesNot() {
        Tenant plain = Tenant.withDefaults("acme");
        assertThat(admin.withSecretIfNeeded(plain).webhookSecret()).isNull();
        Tenant withUrl = plain.patched(Json.mapper().createObjectNode().put("webhookUrl", "https://hooks.example.com/"));
        assertThat(admin.withSecretIfNeeded(withUrl).webhookSecret()).startsWith(WebhookSecrets.PREFIX);
        Tenant keeps = withUrl.withWebhookSecret("whsec_kept");
        assertThat(admin.withSecretIfNeeded(keeps).webhookSecret()).isEqualTo("whsec_kept");
    }

    @Test
    void aRotationKeepsThePreviousSecretSigningForTheOverlap() {
        String first = WebhookSecrets.generate();
        tenants.put("acme", Tenant.withDefaults("acme").withWebhookSecret(first));
        WebhookAdmin.Rotation r = admin.rotateSecret("acme").orElseThrow();
        assertThat(r.secret()).startsWith(WebhookSecrets.PREFIX).isNotEqualTo(first);
        assertThat(tenants.get("acme").webhookSecret()).isEqualTo(r.secret());
        assertThat(r.previousValidUntil()).isEqualTo(clock.instant().plus(Duration.ofHours(24)));
        assertThat(deliveries.previousSecret("acme")).contains(first);
    }

    @Test
    void aFirstSecretHasNoPreviousAndAnUnknownTenantNoRotation() {
        tenants.put("acme", Tenant.withDefaults("acme"));
        assertThat(admin.rotateSecret("acme").orElseThrow().previousValidUntil()).isNull();
        assertThat(deliveries.previousSecret("acme")).isEmpty();
        assertThat(admin.rotateSecret("nobody")).isEmpty();
    }

    @Test
    void pagesGoNewestFirstAndTheLastHasNoNextBefore() {
        Instant t0 = clock.instant();
        for (int i = 0; i < 3; i++) deliveries.create(WebhookDelivery.pending("d" + i, "acme", "j", "job.succeeded", "https://h/", "{}", t0.plusSeconds(i)));
        WebhookAdmin.Page first = admin.list("acme", null, 2);
        assertThat(first.deliveries()).extracting(WebhookDelivery::id).containsExactly("d2", "d1");
        assertThat(first.nextBefore()).isEqualTo(t0.plusSeconds(1).toEpochMilli());
        WebhookAdmin.Page last = admin.list("acme", first.nextBefore(), 2);
        assertThat(last.deliveries()).extracting(WebhookDelivery::id).containsExactly("d0");
        assertThat(last.nextBefore()).isNull();
    }

    @Test
    void aRedeliveryIsDueNowInANewSeriesWithItsEndpointEnabledAgain() {
        WebhookDelivery d = dead("d1", clock.instant());
        clock.advance(Duration.ofMinutes(5));
        WebhookDelivery again = admin.redeliver(d);
        assertThat(again.status()).isEqualTo(WebhookDelivery.Status.PENDING);
        assertThat(again.seriesAttempt()).isZero();
        assertThat(again.totalAttempts()).isEqualTo(1);
        assertThat(deliveries.due).containsEntry("acme/d1", clock.instant().toEpochMilli());
        assertThat(deliveries.isDisabled("acme", d.url())).isFalse();
        assertThat(deliveries.deadSince("acme", Instant.EPOCH)).isEmpty();
        assertThat(admin.delivery("acme", "d1")).contains(again);
    }

    @Test
    void replayRedeliversOnlyWhatDiedSinceTheGivenInstant() {
        Instant t0 = clock.instant();
        dead("old", t0);
        dead("new", t0.plusSeconds(60));
        assertThat(admin.replayFailed("acme", t0.plusSeconds(30))).containsExactly("new");
        assertThat(deliveries.due).containsOnlyKeys("acme/new");
        assertThat(deliveries.deadSince("acme", Instant.EPOCH)).containsExactly("old");
    }
}
