package com.fairpix.ingest.http;

import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.job.JobIds;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.json.Json;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantState;
import com.fairpix.core.tenant.TenantStore;
import com.fairpix.ingest.auth.Authenticator;
import com.fairpix.webhooks.UrlGuard;
import com.fairpix.webhooks.WebhookAdmin;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The admin API under /admin/v1, guarded by the admin token: tenants (create, list, get, patch,
 * suspend, activate, delete), their API keys (create, list, revoke) and any tenant's job. The
 * webhook routes are {@link WebhooksController}'s.
 */
public final class AdminController {
    private final Authenticator auth;
    private final TenantStore tenants;
    private final JobStore jobs;
    private final WebhookAdmin webhooks;

    /** @param webhooks checks webhook URLs at registration and makes tenants' signing secrets */
    public AdminController(Authenticator auth, TenantStore tenants, JobStore jobs, WebhookAdmin webhooks) {
        this.auth = auth;
        this.tenants = tenants;
        this.jobs = jobs;
        this.webhooks = webhooks;
    }

    /** POST /admin/v1/tenants {"id": "...", ...limits}: 201 with the tenant and its API key (shown once). */
    public void createTenant(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        JsonNode body = com.fairpix.core.http.ServiceHttp.jsonObject(ctx);
        String id = body.path("id").asText(null);
        if (id == null || !Tenant.ID.matcher(id).matches()) {
            throw invalid(List.of("id must match [a-z0-9][a-z0-9-]{1,62}"));
        }
        ObjectNode limits = body.deepCopy();
        limits.remove("id");
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
        TenantStore.Created created = tenants.create(tenant)
                .orElseThrow(() -> ApiProblem.conflict("tenant-exists", "Tenant '" + id + "' already exists."));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenant", created.tenant());
        out.put("apiKey", created.apiKey());
        ctx.header("Location", "/admin/v1/tenants/" + id).status(201).json(out);
    }

    /** GET /admin/v1/tenants?cursor=&limit=: tenants in id order. */
    public void listTenants(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        int limit = Pagination.limit(ctx, 100, 1000);
        String cursor = ctx.queryParam("cursor");
        if (cursor != null && !Tenant.ID.matcher(cursor).matches()) throw ApiProblem.badRequest("invalid-cursor", "cursor must be a tenant id from a previous page's nextCursor.");
        TenantStore.Page page = tenants.list(cursor, limit);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenants", page.tenants().stream().map(AdminController::view).toList());
        out.put("nextCursor", page.nextCursor());
        if (page.nextCursor() != null) ctx.header("Link", "</admin/v1/tenants?cursor=" + page.nextCursor() + "&limit=" + limit + ">; rel=\"next\"");
        ctx.json(out);
    }

    /** GET /admin/v1/tenants/{id}. */
    public void getTenant(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        ctx.json(view(tenant(ctx.pathParam("id"))));
    }

    /** PATCH /admin/v1/tenants/{id}: JSON merge patch of the settable limits. */
    public void patchTenant(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        JsonNode patch = com.fairpix.core.http.ServiceHttp.jsonObject(ctx);
        Tenant current = tenant(ctx.pathParam("id"));
        if (current.state() == TenantState.DELETED) throw ApiProblem.conflict("tenant-deleted", "Tenant '" + current.id() + "' is deleted.");
        checkWebhookUrl(patch);
        try {
            Tenant updated = tenants.update(current.id(), t -> webhooks.withSecretIfNeeded(t.patched(patch)))
                    .orElseThrow(() -> ApiProblem.notFound("No tenant " + current.id() + "."));
            if (!java.util.Objects.equals(current.webhookUrl(), updated.webhookUrl())) webhooks.urlChanged(updated.id());
            ctx.json(view(updated));
        } catch (Tenant.InvalidTenantException e) {
            throw invalid(e.errors());
        }
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

    /** POST /admin/v1/tenants/{id}/suspend: ingest answers 403; queued jobs are held, not dropped. */
    public void suspend(Context ctx) {
        transition(ctx, EnumSet.of(TenantState.ACTIVE, TenantState.SUSPENDED), TenantState.SUSPENDED);
    }

    /** POST /admin/v1/tenants/{id}/activate: admits again; held jobs run. */
    public void activate(Context ctx) {
        transition(ctx, EnumSet.of(TenantState.ACTIVE, TenantState.SUSPENDED), TenantState.ACTIVE);
    }

    /** DELETE /admin/v1/tenants/{id}: keys revoked, ingest answers 401; the record stays as a tombstone. */
    public void deleteTenant(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        Tenant current = tenant(ctx.pathParam("id"));
        Tenant deleted = current.state() == TenantState.DELETED ? current
                : tenants.update(current.id(), t -> t.withState(TenantState.DELETED)).orElseThrow();
        tenants.revokeAllKeys(current.id());
        ctx.json(view(deleted));
    }

    private void transition(Context ctx, Set<TenantState> from, TenantState to) {
        auth.admin(ctx.header("Authorization"));
        Tenant current = tenant(ctx.pathParam("id"));
        if (!from.contains(current.state())) {
            throw ApiProblem.conflict("invalid-transition", "Tenant '" + current.id() + "' is " + current.state() + "; it cannot become " + to + ".");
        }
        if (current.state() == to) {
            ctx.json(view(current));
            return;
        }
        ctx.json(view(tenants.update(current.id(), t -> {
            if (!from.contains(t.state())) throw ApiProblem.conflict("invalid-transition", "Tenant '" + t.id() + "' is " + t.state() + ".");
            return t.withState(to);
        }).orElseThrow()));
    }

    /** POST /admin/v1/tenants/{id}/keys: a further API key (for rotation), shown once. */
    public void createKey(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        Tenant tenant = tenant(ctx.pathParam("id"));
        if (tenant.state() == TenantState.DELETED) throw ApiProblem.conflict("tenant-deleted", "Tenant '" + tenant.id() + "' is deleted.");
        String key = tenants.createKey(tenant.id());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenant", tenant.id());
        out.put("keyId", com.fairpix.core.tenant.ApiKeys.keyId(com.fairpix.core.tenant.ApiKeys.hash(key)));
        out.put("apiKey", key);
        ctx.status(201).json(out);
    }

    /** GET /admin/v1/tenants/{id}/keys: key ids and creation times (never the keys). */
    public void listKeys(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        Tenant tenant = tenant(ctx.pathParam("id"));
        ctx.json(Map.of("tenant", tenant.id(), "keys", tenants.keys(tenant.id())));
    }

    /** DELETE /admin/v1/tenants/{id}/keys/{keyId}: the key stops working on every node within a second. */
    public void revokeKey(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        Tenant tenant = tenant(ctx.pathParam("id"));
        String keyId = ctx.pathParam("keyId");
        if (!tenants.revokeKey(tenant.id(), keyId)) throw ApiProblem.notFound("Tenant '" + tenant.id() + "' has no key " + keyId + ".");
        ctx.status(204);
    }

    /** GET /admin/v1/jobs/{id}: any tenant's job, with its tenant. */
    public void getJob(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        String id = ctx.pathParam("id");
        if (!JobIds.isValid(id)) throw ApiProblem.notFound("No job " + id + ".");
        String tenant = jobs.tenantOf(id).orElseThrow(() -> ApiProblem.notFound("No job " + id + "."));
        JobRecord job = jobs.get(tenant, id).orElseThrow(() -> ApiProblem.notFound("No job " + id + "."));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenant", tenant);
        out.put("job", JobView.of(job));
        ctx.json(out);
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

    private Tenant tenant(String id) {
        return tenant(tenants, id);
    }

    /** The tenant named in a path; 404 when the id is malformed or unknown. */
    static Tenant tenant(TenantStore tenants, String id) {
        if (id == null || !Tenant.ID.matcher(id).matches()) throw ApiProblem.notFound("No tenant " + id + ".");
        return tenants.get(id).orElseThrow(() -> ApiProblem.notFound("No tenant " + id + "."));
    }

    private static ApiProblem invalid(List<String> errors) {
        return ApiProblem.badRequest("invalid-tenant", "The tenant is invalid: " + String.join("; ", errors)).with("errors", errors);
    }
}
