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
 * ingest node's own state, and per pool: its measured capacity (cost units/s, from its workers),
 * the sum of its active tenants' guarantees (their rates, tokens/s, the same unit) and the
 * overcommit ratio (guarantees ÷ capacity; null until a worker has measured).
 */
public final class StatusController {
    private final Authenticator auth;
    private final OverloadGuard overload;
    private final PoolCapacity capacity;
    private final com.fairpix.core.tenant.TenantStore tenants;
    private final List<String> pools;
    private final Clock clock;

    public StatusController(Authenticator auth, OverloadGuard overload, PoolCapacity capacity, com.fairpix.core.tenant.TenantStore tenants,
                            List<String> pools, Clock clock) {
        this.auth = auth;
        this.tenants = tenants;
        this.overload = overload;
        this.capacity = capacity;
        this.pools = List.copyOf(pools);
        this.clock = clock;
    }

    public void status(Context ctx) {
        auth.admin(ctx);
        Map<String, Object> out = new LinkedHashMap<>(overload.status());
        Map<String, Object> byPool = new LinkedHashMap<>();
        Map<String, Double> guarantees = guarantees();
        for (String pool : pools) {
            try {
                PoolCapacity.Measured m = capacity.read(pool, clock.instant());
                Map<String, Object> p = new LinkedHashMap<>();
                p.put("costPerSecond", m.costPerSecond());
                p.put("replicas", m.replicaCount());
                double g = guarantees == null ? Double.NaN : guarantees.getOrDefault(pool, 0.0);
                p.put("guarantees", Double.isNaN(g) ? null : g);
                p.put("overcommit", Double.isNaN(g) || !(m.costPerSecond() > 0) ? null : g / m.costPerSecond());
                byPool.put(pool, p);
            } catch (RuntimeException e) {
                byPool.put(pool, Map.of("error", "Redis: " + e.getClass().getSimpleName()));
            }
        }
        out.put("capacity", byPool);
        ctx.json(out);
    }

    /** How old the guarantees' sum may be before a status request refreshes it. */
    static final java.time.Duration GUARANTEES_MAX_AGE = java.time.Duration.ofSeconds(10);
    private volatile Map<String, Double> guarantees;
    private volatile long guaranteesAt;
    private final java.util.concurrent.atomic.AtomicBoolean refreshing = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * pool → the sum of its active tenants' rates, as of at most {@link #GUARANTEES_MAX_AGE} ago
     * (plus one refresh): reading every tenant takes a page of 1,000 per round trip, too slow for
     * each status request of a farm with many tenants (operators and tests poll it). The first
     * request waits for the sum; later ones get the last sum while a stale one is refreshed in the
     * background. Null when the tenant store cannot be read.
     */
    private Map<String, Double> guarantees() {
        if (guarantees == null) {
            refresh();
        } else if (clock.millis() - guaranteesAt > GUARANTEES_MAX_AGE.toMillis() && refreshing.compareAndSet(false, true)) {
            Thread.ofVirtual().name("fairpix-guarantees").start(() -> {
                try {
                    refresh();
                } finally {
                    refreshing.set(false);
                }
            });
        }
        return guarantees;
    }

    private void refresh() {
        try {
            Map<String, Double> sum = sumGuarantees();
            guarantees = sum;
            guaranteesAt = clock.millis();
        } catch (RuntimeException e) {
            // the last sum stays (or none)
        }
    }

    /** pool → the sum of its active tenants' rates, tokens/s (every tenant, a page of 1,000 at a time). */
    private Map<String, Double> sumGuarantees() {
        Map<String, Double> sum = new LinkedHashMap<>();
        String cursor = null;
        do {
            com.fairpix.core.tenant.TenantStore.Page page = tenants.list(cursor, 1000);
            for (com.fairpix.core.tenant.Tenant t : page.tenants()) {
                if (t.state() == com.fairpix.core.tenant.TenantState.ACTIVE) sum.merge(t.pool(), t.rate(), Double::sum);
            }
            cursor = page.nextCursor();
        } while (cursor != null);
        return sum;
    }
}
