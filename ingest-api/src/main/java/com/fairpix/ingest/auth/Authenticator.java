package com.fairpix.ingest.auth;

import com.fairpix.core.error.Rejected;
import com.fairpix.core.http.BearerToken;
import com.fairpix.core.error.RetryLater;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantState;
import com.fairpix.core.tenant.TenantDirectory;

/**
 * Resolves the calling tenant from {@code Authorization: Bearer fpk_...}. The tenant comes only
 * from the key, never from the request. Keys are never logged.
 */
public final class Authenticator {
    private final TenantDirectory tenants;
    private final String adminToken;

    /** @param adminToken the admin bearer token; empty disables the admin API */
    public Authenticator(TenantDirectory tenants, String adminToken) {
        this.tenants = tenants;
        this.adminToken = adminToken == null ? "" : adminToken;
    }

    /**
     * @param authorization the request's Authorization header, or null
     * @throws Rejected unauthenticated for a missing, malformed, unknown or deleted tenant's key;
     *                  forbidden ({@code tenant-suspended}, {@code tenant-not-active}) for a tenant not active
     * @throws RetryLater when the tenant cannot be loaded (Redis away)
     */
    public Tenant tenant(String authorization) {
        String key = BearerToken.of(authorization).orElse(null);
        if (key == null) throw Rejected.unauthenticated("Send the tenant API key as 'Authorization: Bearer fpk_...'.");
        Tenant tenant;
        try {
            tenant = tenants.byApiKey(key).orElseThrow(() -> Rejected.unauthenticated("The API key is not valid."));
        } catch (redis.clients.jedis.exceptions.JedisException e) {
            throw RetryLater.dependency("redis", "Tenant data cannot be loaded right now; try again shortly.", 5);
        }
        if (tenant.state() == TenantState.DELETED) throw Rejected.unauthenticated("The API key is not valid.");
        if (tenant.state() == TenantState.SUSPENDED) {
            throw Rejected.forbidden("tenant-suspended", "Tenant '" + tenant.id() + "' is suspended; ask the platform operator to activate it.");
        }
        if (tenant.state() != TenantState.ACTIVE) {
            throw Rejected.forbidden("tenant-not-active", "Tenant '" + tenant.id() + "' is " + tenant.state() + ".");
        }
        return tenant;
    }

    /**
     * @param authorization the request's Authorization header, or null
     * @throws Rejected unauthenticated when the admin token is missing or wrong, forbidden
     *                  ({@code admin-disabled}) when the admin API is disabled
     */
    public void admin(String authorization) {
        if (adminToken.isEmpty()) throw Rejected.forbidden("admin-disabled", "The admin API is disabled: set FAIRPIX_ADMIN_TOKEN on the ingest-api.");
        if (!BearerToken.matches(authorization, adminToken)) {
            throw Rejected.unauthenticated("Send the admin token as 'Authorization: Bearer ...'.");
        }
    }

}
