package com.fairpix.ingest.http;

import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantState;
import com.fairpix.ingest.admin.TenantAdmin;
import com.fairpix.ingest.auth.Authenticator;
import com.fairpix.webhooks.WebhookAdmin;
import com.fairpix.webhooks.WebhookDelivery;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The admin API's webhook routes under /admin/v1/tenants/{id}, guarded by the admin token: secret
 * rotation, a tenant's deliveries, redelivery and replay. Each handler parses, calls
 * {@link WebhookAdmin} and renders.
 */
public final class WebhooksController {
    private final Authenticator auth;
    private final TenantAdmin tenants;
    private final WebhookAdmin webhooks;

    /** @param tenants finds the tenant a path names (404 when none) */
    public WebhooksController(Authenticator auth, TenantAdmin tenants, WebhookAdmin webhooks) {
        this.auth = auth;
        this.tenants = tenants;
        this.webhooks = webhooks;
    }

    /**
     * POST /admin/v1/tenants/{id}/webhook-secret: a new signing secret (shown in the answer); the
     * previous one keeps signing beside it for the overlap ({@code FAIRPIX_WEBHOOKS_SECRET_OVERLAP_SECONDS}).
     */
    public void rotateSecret(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        Tenant current = tenants.get(ctx.pathParam("id"));
        if (current.state() == TenantState.DELETED) throw ApiProblem.conflict("tenant-deleted", "Tenant '" + current.id() + "' is deleted.");
        WebhookAdmin.Rotation rotation = webhooks.rotateSecret(current.id()).orElseThrow(() -> ApiProblem.notFound("No tenant " + current.id() + "."));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenant", rotation.tenant());
        out.put("webhookSecret", rotation.secret());
        if (rotation.previousValidUntil() != null) out.put("previousSecretValidUntil", rotation.previousValidUntil());
        ctx.json(out);
    }

    /** GET /admin/v1/tenants/{id}/webhooks?before=&limit=: the tenant's deliveries, newest first (no payloads). */
    public void list(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        Tenant tenant = tenants.get(ctx.pathParam("id"));
        int limit = Pagination.limit(ctx, 50, 1000);
        Long before = null;
        if (ctx.queryParam("before") != null) {
            try {
                before = Long.parseLong(ctx.queryParam("before"));
            } catch (NumberFormatException e) {
                throw ApiProblem.badRequest("invalid-cursor", "before must be the nextBefore of a previous page (epoch milliseconds).");
            }
        }
        WebhookAdmin.Page page = webhooks.list(tenant.id(), before, limit);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (WebhookDelivery d : page.deliveries()) rows.add(summary(d));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenant", tenant.id());
        out.put("deliveries", rows);
        out.put("nextBefore", page.nextBefore());
        ctx.json(out);
    }

    /** GET /admin/v1/tenants/{id}/webhooks/{deliveryId}: the delivery, its payload and every attempt. */
    public void get(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        ctx.json(delivery(ctx));
    }

    /**
     * POST /admin/v1/tenants/{id}/webhooks/{deliveryId}/redeliver: sends the event again, now, under
     * the same {@code webhook-id} with a fresh timestamp and signature; a new retry series starts.
     */
    public void redeliver(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        ctx.status(202).json(summary(webhooks.redeliver(delivery(ctx))));
    }

    /** POST /admin/v1/tenants/{id}/webhooks/replay-failed?since=ISO-8601: redelivers every dead-lettered delivery since then. */
    public void replayFailed(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        Tenant tenant = tenants.get(ctx.pathParam("id"));
        String sinceText = ctx.queryParam("since");
        if (sinceText == null) throw ApiProblem.badRequest("invalid-since", "since is required: an ISO-8601 instant, e.g. 2026-01-31T00:00:00Z.");
        Instant since;
        try {
            since = Instant.parse(sinceText);
        } catch (java.time.format.DateTimeParseException e) {
            throw ApiProblem.badRequest("invalid-since", "since must be an ISO-8601 instant, e.g. 2026-01-31T00:00:00Z; got '" + sinceText + "'.");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenant", tenant.id());
        out.put("since", since);
        out.put("replayed", webhooks.replayFailed(tenant.id(), since));
        ctx.status(202).json(out);
    }

    private WebhookDelivery delivery(Context ctx) {
        Tenant tenant = tenants.get(ctx.pathParam("id"));
        String id = ctx.pathParam("deliveryId");
        if (!id.matches("[A-Za-z0-9_-]{1,128}")) throw ApiProblem.notFound("No delivery " + id + ".");
        return webhooks.delivery(tenant.id(), id).orElseThrow(() -> ApiProblem.notFound("Tenant '" + tenant.id() + "' has no delivery " + id + "."));
    }

    /** A delivery in a list: no payload, the last attempt only. */
    private static Map<String, Object> summary(WebhookDelivery d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", d.id());
        m.put("jobId", d.jobId());
        m.put("eventType", d.eventType());
        m.put("url", d.url());
        m.put("status", d.status());
        m.put("attempts", d.totalAttempts());
        m.put("createdAt", d.createdAt());
        if (d.nextAttemptAt() != null) m.put("nextAttemptAt", d.nextAttemptAt());
        if (!d.attempts().isEmpty()) m.put("lastAttempt", d.attempts().getLast());
        if (d.reason() != null) m.put("reason", d.reason());
        return m;
    }
}
