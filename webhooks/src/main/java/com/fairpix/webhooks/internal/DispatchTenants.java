package com.fairpix.webhooks.internal;

import com.fairpix.core.tenant.Tenant;
import java.util.Optional;

/** What the dispatcher needs of the tenant records: {@link StoredTenants} in production, a map in tests. */
public interface DispatchTenants {
    /** The tenant, as last seen; empty when unknown. */
    Optional<Tenant> byId(String tenantId);

    /**
     * The tenant's signing secret, made and stored now if it has none (a tenant from before webhooks).
     *
     * @throws java.util.NoSuchElementException when the tenant is gone
     */
    String ensureSecret(String tenantId);
}
