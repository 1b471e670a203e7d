package com.fairpix.autoscaler.http;

import com.fairpix.autoscaler.policy.PolicyConfig;
import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.json.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** The autoscaler's admin API, /admin/v1/pools; every route is listed in {@link #register}. */
public final class PoolsController {
    private final ManagedPools autoscaler;
    private final AdminGuard guard;

    public PoolsController(ManagedPools autoscaler, AdminGuard guard) {
        this.autoscaler = autoscaler;
        this.guard = guard;
    }

    /** Registers every route on the app it is given ({@link com.fairpix.core.http.ServiceBootstrap#routes}). */
    public Consumer<Javalin> routes() {
        return this::register;
    }

    private void register(Javalin app) {
        app.get("/admin/v1/pools", this::list);
        app.get("/admin/v1/pools/{pool}", this::get);
        app.get("/admin/v1/pools/{pool}/decisions", this::decisions);
        app.get("/admin/v1/pools/{pool}/policy", this::getPolicy);
        app.patch("/admin/v1/pools/{pool}/policy", this::patchPolicy);
        app.put("/admin/v1/pools/{pool}/replicas", this::set);
        app.post("/admin/v1/pools/{pool}/pause", this::pause);
        app.post("/admin/v1/pools/{pool}/resume", this::resume);
    }

    /** GET /admin/v1/pools: every pool's status. */
    void list(Context ctx) {
        guard.check(ctx);
        List<Object> out = new ArrayList<>();
        for (String pool : autoscaler.pools()) out.add(autoscaler.status(pool));
        ctx.json(Map.of("actuator", autoscaler.actuatorKind(), "pools", out));
    }

    /** GET /admin/v1/pools/{pool}: mode, desired/actual replicas, last decision, signals, policy. */
    void get(Context ctx) {
        guard.check(ctx);
        ctx.json(autoscaler.status(ctx.pathParam("pool")));
    }

    /** GET /admin/v1/pools/{pool}/decisions?limit=N: the decision log, newest first (default 20, at most 200). */
    void decisions(Context ctx) {
        guard.check(ctx);
        int limit;
        try {
            limit = Integer.parseInt(ctx.queryParamAsClass("limit", String.class).getOrDefault("20"));
        } catch (NumberFormatException e) {
            throw ApiProblem.badRequest("invalid-limit", "limit must be an integer between 1 and 200.");
        }
        if (limit < 1 || limit > 200) throw ApiProblem.badRequest("invalid-limit", "limit must be an integer between 1 and 200.");
        ctx.json(Map.of("pool", ctx.pathParam("pool"), "decisions", autoscaler.decisions(ctx.pathParam("pool"), limit)));
    }

    void getPolicy(Context ctx) {
        guard.check(ctx);
        ctx.json(autoscaler.policy(ctx.pathParam("pool")));
    }

    /** PATCH /admin/v1/pools/{pool}/policy {"maxReplicas": 12, ...}: merges, validates, swaps the whole policy. */
    void patchPolicy(Context ctx) {
        guard.check(ctx);
        String pool = ctx.pathParam("pool");
        JsonNode body = com.fairpix.core.http.ServiceHttp.jsonObject(ctx);
        ObjectNode merged = Json.mapper().valueToTree(autoscaler.policy(pool));
        List<String> errors = new ArrayList<>();
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!merged.has(f)) errors.add("unknown member '" + f + "'");
            else if (!body.get(f).isNumber()) errors.add(f + " must be a number");
            else merged.set(f, body.get(f));
        }
        PolicyConfig next = null;
        if (errors.isEmpty()) {
            try {
                next = Json.mapper().treeToValue(merged, PolicyConfig.class);
                errors.addAll(next.problems());
            } catch (Exception e) {
                errors.add("cannot read the policy: " + e.getMessage());
            }
        }
        if (!errors.isEmpty()) throw ApiProblem.badRequest("invalid-policy", "The policy is invalid: " + String.join("; ", errors)).with("errors", errors);
        autoscaler.reconfigure(pool, next);
        ctx.json(next);
    }

    /** PUT /admin/v1/pools/{pool}/replicas {"replicas": N}: manual override until resume. */
    void set(Context ctx) {
        guard.check(ctx);
        JsonNode body = com.fairpix.core.http.ServiceHttp.jsonObject(ctx);
        JsonNode r = body.get("replicas");
        if (r == null || !r.canConvertToInt() || !r.isIntegralNumber()) throw ApiProblem.badRequest("invalid-replicas", "The body must be {\"replicas\": <integer>}.");
        autoscaler.set(ctx.pathParam("pool"), r.asInt());
        ctx.json(autoscaler.status(ctx.pathParam("pool")));
    }

    /** POST /admin/v1/pools/{pool}/pause: hold the current size; decisions are still logged. */
    void pause(Context ctx) {
        guard.check(ctx);
        autoscaler.pause(ctx.pathParam("pool"));
        ctx.json(autoscaler.status(ctx.pathParam("pool")));
    }

    /** POST /admin/v1/pools/{pool}/resume: back to the policy (ends pause and manual set). */
    void resume(Context ctx) {
        guard.check(ctx);
        autoscaler.resume(ctx.pathParam("pool"));
        ctx.json(autoscaler.status(ctx.pathParam("pool")));
    }
}
