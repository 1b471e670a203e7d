package com.fairpix.ingest.admission;

import com.fairpix.core.tenant.Tenant;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A test's {@link FarmShare}: a fixed capacity C and guarantee capacity M for every pool, the
 * tenants' demand counted by the decisions and shared by {@link GuaranteeSharing} over an
 * in-memory store (one node), refreshed by hand ({@link #refresh()}) as the ingest's 2 s timer would.
 */
final class RefreshedShare implements FarmShare {
    private final GuaranteeSharing sharing;
    private final Clock clock;
    private final double capacity;
    private final double guaranteeCapacity;
    private final Map<String, Tenant> tenants = new ConcurrentHashMap<>();
    private final Map<String, GuaranteeSharing.PoolShares> views = new ConcurrentHashMap<>();

    RefreshedShare(Sharing rule, Clock clock, double capacity, double guaranteeCapacity) {
        this.sharing = new GuaranteeSharing(rule, GuaranteeSharing.DemandStore.inMemory(), id -> Optional.ofNullable(tenants.get(id)));
        this.clock = clock;
        this.capacity = capacity;
        this.guaranteeCapacity = guaranteeCapacity;
    }

    /** Registers tenants (the directory); the proportional rule counts every registered tenant as active. */
    RefreshedShare with(Tenant... ts) {
        for (Tenant t : ts) tenants.put(t.id(), t);
        return this;
    }

    /** One refresh of every pool the tenants use. */
    RefreshedShare refresh() {
        double sum = tenants.values().stream().mapToDouble(Tenant::rate).sum();
        for (String pool : new String[] {"cpu", "gpu"}) {
            views.put(pool, sharing.share(pool, Math.floorDiv(clock.millis(), 1000), capacity, guaranteeCapacity, Share.of(capacity, guaranteeCapacity, sum)));
        }
        return this;
    }

    GuaranteeSharing.PoolShares view(String pool) {
        return views.getOrDefault(pool, GuaranteeSharing.PoolShares.NONE);
    }

    @Override
    public Share of(String pool) {
        GuaranteeSharing.PoolShares v = views.get(pool);
        return v == null ? new Share(capacity, 1) : v.share();
    }

    @Override
    public void asked(String pool, String tenant, long costNano) {
        sharing.asked(pool, tenant, costNano);
    }
}
