package com.fairpix.ingest.auth;

import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantState;
import com.fairpix.core.tenant.TenantDirectory;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

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
     * @throws ApiProblem 401 for a missing, malformed, unknown or deleted tenant's key; 403 for a
     *                    suspended tenant
     */
    public Tenant tenant(Context ctx) {
        String key = bearer(ctx);
        if (key == null) throw ApiProblem.unauthorized("Send the tenant API key as 'Authorization: Bearer fpk_...'.");
        Tenant tenant;
        try {
            tenant = tenants.byApiKey(key).orElseThrow(() -> ApiProblem.unauthorized("The API key is not valid."));
        } catch (redis.clients.jedis.exceptions.JedisException e) {
            throw ApiProblem.unavailable("redis", "Tenant data cannot be loaded right now; try again shortly.", 5);
        }
        if (tenant.state() == TenantState.DELETED) throw ApiProblem.unauthorized("The API key is not valid.");
        if (tenant.state() == TenantState.SUSPENDED) {
            throw ApiProblem.forbidden("tenant-suspended", "Tenant '" + tenant.id() + "' is suspended; ask the platform operator to activate it.");
        }
        if (tenant.state() != TenantState.ACTIVE) {
            throw ApiProblem.forbidden("tenant-not-active", "Tenant '" + tenant.id() + "' is " + tenant.state() + ".");
        }
        return tenant;
    }

    /** @throws ApiProblem 401 when the admin token is missing or wrong, 403 when the admin API is disabled */
    public void admin(Context ctx) {
        if (adminToken.isEmpty()) throw ApiProblem.forbidden("admin-disabled", "The admin API is disabled: set FAIRPIX_ADMIN_TOKEN on the ingest-api.");
        String token = bearer(ctx);
        // Constant-time comparison: the token must not leak through response timing.
        if (token == null || !MessageDigest.isEqual(token.getBytes(StandardCharsets.UTF_8), adminToken.getBytes(StandardCharsets.UTF_8))) {
            throw ApiProblem.unauthorized("Send the admin token as 'Authorization: Bearer ...'.");
        }
    }

    private static String bearer(Context ctx) {
        String header = ctx.header("Authorization");
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) return null;
        String value = header.substring(7).trim();
        return value.isEmpty() ? null : value;
    }
}
