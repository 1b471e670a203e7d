package com.fairpix.ingest.http;

import com.fairpix.core.capacity.PoolCapacity;
import com.fairpix.ingest.auth.Authenticator;
import com.fairpix.ingest.overload.OverloadGuard;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * GET /admin/v1/status: this node's farm view (breakers, ramp level, shedding), every registered
 * ingest node's own state, and each pool's measured capacity (cost units/s, from its workers).
 */
public final class StatusController {
    private final Authenticator auth;
    private final OverloadGuard overload;
    private final PoolCapacity capacity;
    private final List<String> pools;
    private final Clock clock;

    public StatusController(Authenticator auth, OverloadGuard overload, PoolCapacity capacity, List<String> pools, Clock clock) {
        this.auth = auth;
        this.overload = overload;
        this.capacity = capacity;
        this.pools = List.copyOf(pools);
        this.clock = clock;
    }

    public void status(Context ctx) {
        auth.admin(ctx);
        Map<String, Object> out = new LinkedHashMap<>(overload.status());
        Map<String, Object> byPool = new LinkedHashMap<>();
        for (String pool : pools) {
            try {
                PoolCapacity.Measured m = capacity.read(pool, clock.instant());
                byPool.put(pool, Map.of("costPerSecond", m.costPerSecond(), "replicas", m.replicaCount()));
            } catch (RuntimeException e) {
                byPool.put(pool, Map.of("error", "Redis: " + e.getClass().getSimpleName()));
            }
        }
        out.put("capacity", byPool);
        ctx.json(out);
    }
}
