package com.fairpix.ingest.http;

import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.http.ServiceHttp;
import com.fairpix.core.json.Json;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantState;
import com.fairpix.core.tenant.TenantStore;
import com.fairpix.ingest.admin.TenantAdmin;
import com.fairpix.ingest.auth.Authenticator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The admin API's tenants under /admin/v1/tenants, guarded by the admin token: create, list, get,
 * patch, suspend, activate, delete. Each handler parses, calls {@link TenantAdmin} and renders.
 */
public final class TenantsController {
    private final Authenticator auth;
    private final TenantAdmin tenants;

    public TenantsController(Authenticator auth, TenantAdmin tenants) {
        this.auth = auth;
        this.tenants = tenants;
    }

    /** POST /admin/v1/tenants {"id": "...", ...limits}: 201 with the tenant and its API key (shown once). */
    public void create(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        JsonNode body = ServiceHttp.jsonObject(ctx);
        String id = body.path("id").asText(null);
        ObjectNode limits = body.deepCopy();
        limits.remove("id");
        TenantStore.Created created = tenants.create(id, limits);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenant", created.tenant());
        out.put("apiKey", created.apiKey());
        ctx.header("Location", "/admin/v1/tenants/" + id).status(201).json(out);
    }

    /** GET /admin/v1/tenants?cursor=&limit=: tenants in id order. */
    public void list(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        int limit = Pagination.limit(ctx, 100, 1000);
        String cursor = ctx.queryParam("cursor");
        if (cursor != null && !Tenant.ID.matcher(cursor).matches()) throw ApiProblem.badRequest("invalid-cursor", "cursor must be a tenant id from a previous page's nextCursor.");
        TenantStore.Page page = tenants.list(cursor, limit);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenants", page.tenants().stream().map(TenantsController::view).toList());
        out.put("nextCursor", page.nextCursor());
        if (page.nextCursor() != null) ctx.header("Link", "</admin/v1/tenants?cursor=" + page.nextCursor() + "&limit=" + limit + ">; rel=\"next\"");
        ctx.json(out);
    }

    /** GET /admin/v1/tenants/{id}. */
    public void get(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        ctx.json(view(tenants.get(ctx.pathParam("id"))));
    }

    /** PATCH /admin/v1/tenants/{id}: JSON merge patch of the settable limits. */
    public void patch(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        JsonNode patch = ServiceHttp.jsonObject(ctx);
        ctx.json(view(tenants.patch(ctx.pathParam("id"), patch)));
    }

    /** POST /admin/v1/tenants/{id}/suspend: ingest answers 403; queued jobs are held, not dropped. */
    public void suspend(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        ctx.json(view(tenants.transition(ctx.pathParam("id"), EnumSet.of(TenantState.ACTIVE, TenantState.SUSPENDED), TenantState.SUSPENDED)));
    }

    /** POST /admin/v1/tenants/{id}/activate: admits again; held jobs run. */
    public void activate(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        ctx.json(view(tenants.transition(ctx.pathParam("id"), EnumSet.of(TenantState.ACTIVE, TenantState.SUSPENDED), TenantState.ACTIVE)));
    }

    /** DELETE /admin/v1/tenants/{id}: keys revoked, ingest answers 401; the record stays as a tombstone. */
    public void delete(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        ctx.json(view(tenants.delete(ctx.pathParam("id"))));
    }

    /**
     * A tenant as every admin read shows it: without {@code webhookSecret} (only create and
     * rotate show a secret), with {@code webhookSecretSet} saying whether it has one.
     */
    static ObjectNode view(Tenant t) {
        ObjectNode n = Json.mapper().valueToTree(t);
        n.remove("webhookSecret");
        n.put("webhookSecretSet", t.webhookSecret() != null);
        return n;
    }
}
