package com.fairpix.webhooks.internal;

import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantDirectory;
import com.fairpix.core.tenant.TenantStore;
import com.fairpix.webhooks.WebhookSecrets;
import java.util.Optional;

/** The dispatcher's tenants: reads from the node's cached {@link TenantDirectory}, a first secret written to the {@link TenantStore}. */
public final class StoredTenants implements DispatchTenants {
    private final TenantDirectory directory;
    private final TenantStore store;

    public StoredTenants(TenantDirectory directory, TenantStore store) {
        this.directory = directory;
        this.store = store;
    }

    @Override
    public Optional<Tenant> byId(String tenantId) {
        return directory.byId(tenantId);
    }

    @Override
    public String ensureSecret(String tenantId) {
        // Another node may have made one since the directory's copy: keep that one.
        return store.update(tenantId, x -> x.webhookSecret() != null ? x.withWebhookSecret(x.webhookSecret()) : x.withWebhookSecret(WebhookSecrets.generate()))
                .map(Tenant::webhookSecret).orElseThrow();
    }
}
