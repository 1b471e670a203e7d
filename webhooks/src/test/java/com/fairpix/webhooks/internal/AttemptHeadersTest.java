package com.fairpix.webhooks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.webhooks.InMemoryDeliveryStore;
import com.fairpix.webhooks.WebhookDelivery;
import com.fairpix.webhooks.WebhookSecrets;
import com.fairpix.webhooks.WebhookSignature;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Standard Webhooks headers: stable id, this attempt's time, a signature per secret in use. */
class AttemptHeadersTest {
    static final Instant AT = Instant.parse("2026-01-31T12:00:00Z");
    final InMemoryDeliveryStore deliveries = new InMemoryDeliveryStore();
    final FakeTenants tenants = new FakeTenants();
    final AttemptHeaders headers = new AttemptHeaders(tenants, deliveries);
    final WebhookDelivery d = WebhookDelivery.pending("evt_1", "acme", "job-1", "job.succeeded", "https://hooks.example.com/", "{\"a\":1}", AT);

    static boolean verifies(String secret, Map<String, String> h, WebhookDelivery d) {
        return WebhookSignature.verify(secret, h.get(WebhookSignature.ID), h.get(WebhookSignature.TIMESTAMP), h.get(WebhookSignature.SIGNATURE),
                d.payload().getBytes(StandardCharsets.UTF_8), AT.getEpochSecond(), 300);
    }

    @Test
    void theIdIsTheDeliveryTheTimestampTheAttemptsAndTheSignatureTheTenantsSecret() {
        String secret = WebhookSecrets.generate();
        tenants.add("acme", "https://hooks.example.com/", secret);
        Map<String, String> h = headers.of(d, AT);
        assertThat(h.get(WebhookSignature.ID)).isEqualTo("evt_1");
        assertThat(h.get(WebhookSignature.TIMESTAMP)).isEqualTo(Long.toString(AT.getEpochSecond()));
        assertThat(verifies(secret, h, d)).isTrue();
        assertThat(verifies(WebhookSecrets.generate(), h, d)).isFalse();
    }

    @Test
    void duringARotationsOverlapThePreviousSecretSignsToo() {
        String previous = WebhookSecrets.generate();
        String current = WebhookSecrets.generate();
        tenants.add("acme", "https://hooks.example.com/", current);
        deliveries.keepPreviousSecret("acme", previous, Duration.ofHours(1));
        Map<String, String> h = headers.of(d, AT);
        assertThat(h.get(WebhookSignature.SIGNATURE).split(" ")).hasSize(2);
        assertThat(verifies(current, h, d)).isTrue();
        assertThat(verifies(previous, h, d)).isTrue();
    }

    @Test
    void aTenantWithoutASecretGetsOneMadeAndSignedWith() {
        tenants.add("acme", "https://hooks.example.com/", null);
        Map<String, String> h = headers.of(d, AT);
        String made = tenants.byId("acme").orElseThrow().webhookSecret();
        assertThat(made).startsWith(WebhookSecrets.PREFIX);
        assertThat(verifies(made, h, d)).isTrue();
    }
}
