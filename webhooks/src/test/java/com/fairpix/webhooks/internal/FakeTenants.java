package com.fairpix.webhooks.internal;

import com.fairpix.core.json.Json;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.webhooks.WebhookSecrets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Tenants in a map, for the dispatcher's pieces. */
final class FakeTenants implements DispatchTenants {
    final Map<String, Tenant> byId = new ConcurrentHashMap<>();

    /** Adds a tenant with this webhook URL (null for none) and secret (null for none). */
    Tenant add(String id, String webhookUrl, String secret) {
        Tenant t = Tenant.withDefaults(id);
        if (webhookUrl != null) t = t.patched(Json.mapper().createObjectNode().put("webhookUrl", webhookUrl));
        t = t.withWebhookSecret(secret);
        byId.put(id, t);
        return t;
    }

    @Override
    public Optional<Tenant> byId(String tenantId) {
        return Optional.ofNullable(byId.get(tenantId));
    }

    @Override
    public String ensureSecret(String tenantId) {
        return byId.compute(tenantId, (k, t) -> t.webhookSecret() != null ? t : t.withWebhookSecret(WebhookSecrets.generate())).webhookSecret();
    }
}
