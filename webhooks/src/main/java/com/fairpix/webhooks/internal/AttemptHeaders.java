package com.fairpix.webhooks.internal;

import com.fairpix.webhooks.DeliveryStore;
import com.fairpix.webhooks.WebhookDelivery;
import com.fairpix.webhooks.WebhookSignature;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Standard Webhooks headers of one attempt: the same {@code webhook-id} every time, this
 * attempt's timestamp, and a signature per secret in use: the tenant's current one and, during a
 * rotation's overlap, the previous one.
 */
final class AttemptHeaders {
    private final DispatchTenants tenants;
    private final DeliveryStore deliveries;

    AttemptHeaders(DispatchTenants tenants, DeliveryStore deliveries) {
        this.tenants = tenants;
        this.deliveries = deliveries;
    }

    /**
     * @param at the attempt's time ({@code webhook-timestamp}, epoch seconds)
     * @throws IllegalStateException when the tenant is gone
     */
    Map<String, String> of(WebhookDelivery d, Instant at) {
        long ts = at.getEpochSecond();
        Map<String, String> h = new LinkedHashMap<>();
        h.put(WebhookSignature.ID, d.id());
        h.put(WebhookSignature.TIMESTAMP, Long.toString(ts));
        h.put(WebhookSignature.SIGNATURE, WebhookSignature.header(secrets(d.tenant()), d.id(), ts, d.payload().getBytes(StandardCharsets.UTF_8)));
        h.put("User-Agent", "fairpix-webhooks/1");
        return h;
    }

    /** The tenant's current secret (made now if it has none) and, during a rotation's overlap, the previous one. */
    private List<String> secrets(String tenantId) {
        String seen = tenants.byId(tenantId).orElseThrow(() -> new IllegalStateException("tenant " + tenantId + " is gone")).webhookSecret();
        String current = seen != null ? seen : tenants.ensureSecret(tenantId);
        List<String> out = new ArrayList<>();
        out.add(current);
        deliveries.previousSecret(tenantId).filter(p -> !p.equals(seen)).ifPresent(out::add);
        return out;
    }
}
