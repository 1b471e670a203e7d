package com.fairpix.ingest.http;

import com.fairpix.core.error.ApiProblem;
import com.fairpix.core.job.JobIds;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.json.Json;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantStore;
import com.fairpix.ingest.auth.Authenticator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The admin API under /admin/v1, guarded by the admin token. */
public final class AdminController {
    private static final Set<String> SETTABLE = Set.of("weight", "rate", "burst", "dailyQuota", "maxConcurrentJobs",
            "maxUploadBytes", "maxPixels", "allowedFormats", "webhookUrl", "pool");

    private final Authenticator auth;
    private final TenantStore tenants;
    private final JobStore jobs;

    public AdminController(Authenticator auth, TenantStore tenants, JobStore jobs) {
        this.auth = auth;
        this.tenants = tenants;
        this.jobs = jobs;
    }

    /** POST /admin/v1/tenants {"id": "...", ...limits}: 201 with the tenant and its API key (shown once). */
    public void createTenant(Context ctx) {
        auth.admin(ctx);
        JsonNode body = parseBody(ctx);
        String id = body.path("id").asText(null);
        if (id == null || !Tenant.ID.matcher(id).matches()) {
            throw ApiProblem.badRequest("invalid-tenant", "id must match [a-z0-9][a-z0-9-]{1,62}.").with("errors", List.of("id must match [a-z0-9][a-z0-9-]{1,62}"));
        }
        ObjectNode merged = Json.mapper().valueToTree(Tenant.withDefaults(id));
        List<String> errors = new java.util.ArrayList<>();
        body.fieldNames().forEachRemaining(f -> {
            if (f.equals("id")) return;
            if (!SETTABLE.contains(f)) errors.add("unknown or read-only member '" + f + "'");
            else merged.set(f, body.get(f));
        });
        Tenant tenant;
        try {
            tenant = Json.mapper().treeToValue(merged, Tenant.class);
        } catch (Exception e) {
            errors.add("cannot read the tenant: " + e.getMessage());
            tenant = null;
        }
        if (tenant != null) errors.addAll(tenant.problems());
        if (!errors.isEmpty()) throw ApiProblem.badRequest("invalid-tenant", "The tenant is invalid: " + String.join("; ", errors)).with("errors", errors);
        if (!tenants.create(tenant)) throw ApiProblem.conflict("tenant-exists", "Tenant '" + id + "' already exists.");
        String key = tenants.createKey(id);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenant", tenant);
        out.put("apiKey", key);
        ctx.header("Location", "/admin/v1/tenants/" + id).status(201).json(out);
    }

    /** GET /admin/v1/tenants/{id}. */
    public void getTenant(Context ctx) {
        auth.admin(ctx);
        ctx.json(tenant(ctx.pathParam("id")));
    }

    /** POST /admin/v1/tenants/{id}/keys: a further API key (for rotation), shown once. */
    public void createKey(Context ctx) {
        auth.admin(ctx);
        Tenant tenant = tenant(ctx.pathParam("id"));
        ctx.status(201).json(Map.of("tenant", tenant.id(), "apiKey", tenants.createKey(tenant.id())));
    }

    /** GET /admin/v1/jobs/{id}: any tenant's job, with its tenant. */
    public void getJob(Context ctx) {
        auth.admin(ctx);
        String id = ctx.pathParam("id");
        if (!JobIds.isValid(id)) throw ApiProblem.notFound("No job " + id + ".");
        String tenant = jobs.tenantOf(id).orElseThrow(() -> ApiProblem.notFound("No job " + id + "."));
        JobRecord job = jobs.get(tenant, id).orElseThrow(() -> ApiProblem.notFound("No job " + id + "."));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenant", tenant);
        out.put("job", JobView.of(job));
        ctx.json(out);
    }

    private Tenant tenant(String id) {
        if (id == null || !Tenant.ID.matcher(id).matches()) throw ApiProblem.notFound("No tenant " + id + ".");
        return tenants.get(id).orElseThrow(() -> ApiProblem.notFound("No tenant " + id + "."));
    }

    private static JsonNode parseBody(Context ctx) {
        try {
            JsonNode node = Json.mapper().readTree(ctx.body());
            if (node == null || !node.isObject()) throw new IllegalArgumentException("not an object");
            return node;
        } catch (Exception e) {
            throw ApiProblem.badRequest("invalid-json", "The body must be a JSON object.");
        }
    }
}
