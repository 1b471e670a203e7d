package com.fairpix.ingest.admin;

import com.fairpix.core.error.Rejected;
import com.fairpix.core.tenant.ApiKeys;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantState;
import com.fairpix.core.tenant.TenantStore;
import com.fairpix.webhooks.UrlGuard;
import com.fairpix.webhooks.WebhookAdmin;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What the admin API does to tenants and their API keys, and the rules it keeps: ids and limits
 * valid, webhook URLs checked at registration (each tenant gets its first signing secret with its
 * first URL), a deleted tenant a tombstone whose keys are revoked, and only the listed state changes.
 */
public final class TenantAdmin {
    private final TenantStore tenants;
    private final WebhookAdmin webhooks;
    private final java.util.function.Consumer<String> purge;

    /** @param webhooks checks webhook URLs at registration and makes tenants' signing secrets */
    public TenantAdmin(TenantStore tenants, WebhookAdmin webhooks) {
        this(tenants, webhooks, tenant -> { });
    }

    /**
     * @param purge removes a deleted tenant's state (buckets, quota, leases, held jobs, webhook
     *              deliveries and queues: {@link com.fairpix.core.tenant.TenantPurge})
     */
    public TenantAdmin(TenantStore tenants, WebhookAdmin webhooks, java.util.function.Consumer<String> purge) {
        this.tenants = tenants;
        this.webhooks = webhooks;
        this.purge = purge;
    }

    /** A new API key, shown once: its tenant, its id (what lists and revocations name) and the key. */
    public record NewKey(String tenant, String keyId, String apiKey) {}

    /**
     * Creates a tenant: the defaults, patched with {@code limits}, in state CREATING until the store activates it.
     *
     * @param limits the settable limits (a JSON object, {@code id} left out)
     * @return the tenant and its first API key (shown once)
     * @throws Rejected invalid ({@code invalid-tenant}, with {@code errors}) for a bad id, limit or
     *                  webhook URL; conflict ({@code tenant-exists}) when the id is taken
     */
    public TenantStore.Created create(String id, ObjectNode limits) {
        if (id == null || !Tenant.ID.matcher(id).matches()) {
            throw invalid(List.of("id must match [a-z0-9][a-z0-9-]{1,62}"));
        }
        checkWebhookUrl(limits);
        Tenant tenant;
        try {
            // The defaults at version 0, patched to version 1.
            Tenant defaults = Tenant.withDefaults(id);
            tenant = new Tenant(id, TenantState.CREATING, defaults.weight(), defaults.rate(), defaults.burst(), defaults.dailyQuota(),
                    defaults.maxConcurrentJobs(), defaults.maxUploadBytes(), defaults.maxPixels(), defaults.allowedFormats(),
                    null, webhooks.newSecret(), defaults.pool(), 0).patched(limits);
        } catch (Tenant.InvalidTenantException e) {
            throw invalid(e.errors());
        }
        return tenants.create(tenant).orElseThrow(() -> Rejected.conflict("tenant-exists", "Tenant '" + id + "' already exists."));
    }

    /**
     * Tenants in id order.
     *
     * @param cursor the last id of the previous page, or null for the first
     */
    public TenantStore.Page list(String cursor, int limit) {
        return tenants.list(cursor, limit);
    }

    /**
     * The tenant named in a path.
     *
     * @throws Rejected not found when the id is malformed or unknown
     */
    public Tenant get(String id) {
        if (id == null || !Tenant.ID.matcher(id).matches()) throw Rejected.notFound("No tenant " + id + ".");
        return tenants.get(id).orElseThrow(() -> Rejected.notFound("No tenant " + id + "."));
    }

    /**
     * Applies a JSON merge patch of the settable limits; a new webhook URL starts the tenant's
     * deliveries' circuit afresh.
     *
     * @throws Rejected not found; conflict ({@code tenant-deleted}); invalid ({@code invalid-tenant}, with {@code errors})
     */
    public Tenant patch(String id, JsonNode patch) {
        Tenant current = get(id);
        if (current.state() == TenantState.DELETED) throw Rejected.conflict("tenant-deleted", "Tenant '" + current.id() + "' is deleted.");
        checkWebhookUrl(patch);
        try {
            Tenant updated = tenants.update(current.id(), t -> webhooks.withSecretIfNeeded(t.patched(patch)))
                    .orElseThrow(() -> Rejected.notFound("No tenant " + current.id() + "."));
            if (!Objects.equals(current.webhookUrl(), updated.webhookUrl())) webhooks.urlChanged(updated.id());
            return updated;
        } catch (Tenant.InvalidTenantException e) {
            throw invalid(e.errors());
        }
    }

    /**
     * Moves the tenant to {@code to} when it is in one of {@code from} (already there: unchanged).
     *
     * @throws Rejected not found; conflict ({@code invalid-transition}) from any other state
     */
    public Tenant transition(String id, Set<TenantState> from, TenantState to) {
        Tenant current = get(id);
        if (!from.contains(current.state())) {
            throw Rejected.conflict("invalid-transition", "Tenant '" + current.id() + "' is " + current.state() + "; it cannot become " + to + ".");
        }
        if (current.state() == to) return current;
        return tenants.update(current.id(), t -> {
            if (!from.contains(t.state())) throw Rejected.conflict("invalid-transition", "Tenant '" + t.id() + "' is " + t.state() + ".");
            return t.withState(to);
        }).orElseThrow();
    }

    /**
     * Deletes the tenant: its keys revoked, its state purged, its record kept as a tombstone
     * (deleting again is the same, and purges again). Job records keep their own retention.
     *
     * @throws Rejected not found
     */
    public Tenant delete(String id) {
        Tenant current = get(id);
        Tenant deleted = current.state() == TenantState.DELETED ? current
                : tenants.update(current.id(), t -> t.withState(TenantState.DELETED)).orElseThrow();
        tenants.revokeAllKeys(current.id());
        purge.accept(current.id());
        return deleted;
    }

    /**
     * A further API key for the tenant (for rotation).
     *
     * @throws Rejected not found; conflict ({@code tenant-deleted})
     */
    public NewKey createKey(String id) {
        Tenant tenant = get(id);
        if (tenant.state() == TenantState.DELETED) throw Rejected.conflict("tenant-deleted", "Tenant '" + tenant.id() + "' is deleted.");
        String key = tenants.createKey(tenant.id());
        return new NewKey(tenant.id(), ApiKeys.keyId(ApiKeys.hash(key)), key);
    }

    /** The key ids and creation times of a tenant {@link #get} found (never the keys). */
    public List<TenantStore.KeyInfo> keys(Tenant tenant) {
        return tenants.keys(tenant.id());
    }

    /**
     * Revokes one key: it stops working on every node within a second.
     *
     * @throws Rejected not found, for the tenant or the key
     */
    public void revokeKey(String id, String keyId) {
        Tenant tenant = get(id);
        if (!tenants.revokeKey(tenant.id(), keyId)) throw Rejected.notFound("Tenant '" + tenant.id() + "' has no key " + keyId + ".");
    }

    private void checkWebhookUrl(JsonNode patch) {
        JsonNode url = patch.get("webhookUrl");
        if (url == null || url.isNull()) return;
        if (!url.isTextual()) throw invalid(List.of("webhookUrl must be a URL string"));
        try {
            webhooks.checkUrl(url.asText());
        } catch (UrlGuard.RefusedException e) {
            throw invalid(List.of("webhookUrl: " + e.getMessage()));
        }
    }

    private static Rejected invalid(List<String> errors) {
        return Rejected.invalid("invalid-tenant", "The tenant is invalid: " + String.join("; ", errors)).with("errors", errors);
    }
}
