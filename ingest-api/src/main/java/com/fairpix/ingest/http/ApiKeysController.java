package com.fairpix.ingest.http;

import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.admin.TenantAdmin;
import com.fairpix.ingest.auth.Authenticator;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The admin API's tenant API keys under /admin/v1/tenants/{id}/keys, guarded by the admin token:
 * create (for rotation), list, revoke. Each handler parses, calls {@link TenantAdmin} and renders.
 */
public final class ApiKeysController {
    private final Authenticator auth;
    private final TenantAdmin tenants;

    public ApiKeysController(Authenticator auth, TenantAdmin tenants) {
        this.auth = auth;
        this.tenants = tenants;
    }

    /** POST /admin/v1/tenants/{id}/keys: a further API key (for rotation), shown once. */
    public void create(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        TenantAdmin.NewKey key = tenants.createKey(ctx.pathParam("id"));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenant", key.tenant());
        out.put("keyId", key.keyId());
        out.put("apiKey", key.apiKey());
        ctx.status(201).json(out);
    }

    /** GET /admin/v1/tenants/{id}/keys: key ids and creation times (never the keys). */
    public void list(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        Tenant tenant = tenants.get(ctx.pathParam("id"));
        ctx.json(Map.of("tenant", tenant.id(), "keys", tenants.keys(tenant)));
    }

    /** DELETE /admin/v1/tenants/{id}/keys/{keyId}: the key stops working on every node within a second. */
    public void revoke(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        tenants.revokeKey(ctx.pathParam("id"), ctx.pathParam("keyId"));
        ctx.status(204);
    }
}
