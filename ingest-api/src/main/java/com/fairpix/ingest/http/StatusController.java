package com.fairpix.ingest.http;

import com.fairpix.ingest.auth.Authenticator;
import com.fairpix.ingest.capacity.FarmCapacity;
import com.fairpix.ingest.overload.OverloadGuard;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * GET /admin/v1/status: this node's farm view (breakers, ramp level, shedding), every registered
 * ingest node's own state, and per pool ({@code capacity.<pool>}), as this node last refreshed it
 * ({@link FarmCapacity}, every 2 s):
 * {@code costPerSecond} (measured service rate of its live replicas, cost units/s), {@code replicas},
 * {@code admissionCapacity} (C admission hands out, tokens/s = cost units/s; 0 = none known),
 * {@code guarantees} (Σ rates of its tenants active in the last 120 s, tokens/s; null before the
 * first reading), {@code activeTenants}, {@code overcommit} (guarantees ÷ measured capacity; null
 * until a worker has measured), {@code guaranteeCapacity} (what guarantees are scaled to: the
 * measured capacity, or the pinned C), {@code guaranteeScale} (the factor on every guaranteed
 * rate) and {@code refreshedAt} (when this node read these figures; a failed read keeps the last).
 */
public final class StatusController {
    private final Authenticator auth;
    private final OverloadGuard overload;
    private final FarmCapacity capacity;
    private final List<String> pools;

    public StatusController(Authenticator auth, OverloadGuard overload, FarmCapacity capacity, List<String> pools) {
        this.auth = auth;
        this.overload = overload;
        this.capacity = capacity;
        this.pools = List.copyOf(pools);
    }

    public void status(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        Map<String, Object> out = new LinkedHashMap<>(overload.status());
        Map<String, Object> byPool = new LinkedHashMap<>();
        for (String pool : pools) {
            FarmCapacity.PoolView v = capacity.view(pool);
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("costPerSecond", v.measured());
            p.put("replicas", v.replicas());
            p.put("admissionCapacity", v.share().capacity());
            p.put("guarantees", Double.isNaN(v.guarantees()) ? null : v.guarantees());
            p.put("activeTenants", v.activeTenants());
            p.put("overcommit", Double.isNaN(v.overcommit()) ? null : v.overcommit());
            p.put("guaranteeCapacity", v.guaranteeCapacity());
            p.put("guaranteeScale", v.share().guaranteeScale());
            // Issue 31: how the pool's guarantees are shared, and the tenants asking most (top N by demand).
            p.put("guaranteeSharing", v.sharing().sharing().id());
            p.put("demand", v.sharing().demand());
            p.put("tenantsWithDemand", v.sharing().tenants());
            p.put("satisfiedTenants", v.sharing().fill().satisfied());
            p.put("overShareTenants", v.sharing().overShare().size());
            List<Map<String, Object>> top = new java.util.ArrayList<>();
            for (var t : v.sharing().top()) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("tenant", t.tenant());
                row.put("rate", t.rate());
                row.put("demand", t.demand());
                row.put("guarantee", t.guarantee());
                row.put("overShare", v.sharing().overShare().contains(t.tenant()));
                top.add(row);
            }
            p.put("tenants", top);
            p.put("refreshedAt", v.refreshedAt() == 0 ? null : java.time.Instant.ofEpochMilli(v.refreshedAt()).toString());
            byPool.put(pool, p);
        }
        out.put("capacity", byPool);
        ctx.json(out);
    }
}
