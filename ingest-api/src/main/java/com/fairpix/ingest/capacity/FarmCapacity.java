package com.fairpix.ingest.capacity;

import com.fairpix.core.capacity.PoolCapacity;
import com.fairpix.core.metrics.MetricNames;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantState;
import com.fairpix.ingest.admission.AdmissionConfig;
import com.fairpix.ingest.admission.FarmShare;
import com.fairpix.ingest.admission.GuaranteeSharing;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * What each pool can do, as admission hands it out: the capacity C (tokens/s) and the scale of
 * tenants' guarantees. Refreshed in the background every {@link #REFRESH}, answered from memory on
 * every decision ({@link #of}).
 *
 * <ul>
 *   <li><b>C</b>: with {@code admission.farm-capacity=measured} (the default), the pool's measured
 *       service rate ({@link PoolCapacity}: the sum over its live replicas of the cost units/s each
 *       completes while busy) × {@code admission.capacity-headroom}; the last measured figure stays
 *       while no worker publishes one (a farm whose workers all died still admits at its last
 *       known size, and the backlog bounds stop a queue that nobody drains); none before the first
 *       figure (guarantees as configured, no borrowing). A positive {@code farm-capacity} pins C
 *       for every pool; 0 turns it off.</li>
 *   <li><b>Σ guarantees</b>: the rates of the ACTIVE tenants that had a job accepted into the pool
 *       on any ingest node in the last {@link #ACTIVE_WINDOW} (the Redis sorted set
 *       {@code fp:{pool:<pool>}:active} every accepted job updates, which the autoscaler reads too).
 *       Dormant tenants do not dilute the others' guarantees: a platform with 10,000 tenants of
 *       which 50 upload shares C among those 50. A tenant's first jobs are judged before it counts,
 *       with a larger scale, never a smaller one.</li>
 *   <li><b>Guarantees</b> share M, the measured capacity (or the pinned C): against what the pool
 *       does, not against C with its headroom, so guaranteed traffic alone never queues faster than
 *       the pool drains it; only borrowing uses the headroom, and the soft backlog bound stops
 *       borrowing. With {@code admission.guarantee-sharing=max-min} (the default) by weighted max-min
 *       fairness over each tenant's demand ({@link GuaranteeSharing}: every decision counts its cost
 *       here, {@link #asked}; each refresh flushes the counts to Redis and reads every node's);
 *       with {@code proportional}, every rate scaled by {@code min(1, M ÷ Σ guarantees)}
 *       ({@link FarmShare.Share#of}).</li>
 * </ul>
 */
public final class FarmCapacity implements FarmShare, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FarmCapacity.class);
    /** Time between two refreshes. */
    public static final Duration REFRESH = Duration.ofSeconds(2);
    /** How long after its last request a tenant's guarantee counts in its pool's sum. */
    public static final Duration ACTIVE_WINDOW = Duration.ofSeconds(120);

    /**
     * One pool's figures as last refreshed.
     *
     * @param measured      the pool's measured service rate now, cost units/s (0: no live replica published)
     * @param replicas      live replicas that published
     * @param lastMeasured  the last positive measured rate, cost units/s (0: never)
     * @param guarantees    Σ rates of the pool's active tenants, tokens/s (NaN: not read yet)
     * @param activeTenants how many tenants that sum covers
     * @param guaranteeCapacity what the guarantees are scaled to, tokens/s: the last measured rate, or the pinned C (0: none)
     * @param share         what admission hands out
     * @param sharing       the tenants' demand and guarantees (max-min or proportional) as of this refresh
     * @param refreshedAt   when these figures were read, epoch ms (0: never); a failed refresh keeps the last
     */
    public record PoolView(double measured, int replicas, double lastMeasured, double guarantees, int activeTenants, double guaranteeCapacity,
                           Share share, GuaranteeSharing.PoolShares sharing, long refreshedAt) {
        static final PoolView UNKNOWN = new PoolView(0, 0, 0, Double.NaN, 0, 0, Share.NONE, GuaranteeSharing.PoolShares.NONE, 0);

        /** Σ guarantees ÷ the measured capacity (the last one when no replica publishes now); NaN when either is unknown. */
        public double overcommit() {
            double c = measured > 0 ? measured : lastMeasured;
            return c > 0 && !Double.isNaN(guarantees) ? guarantees / c : Double.NaN;
        }
    }

    private final PoolCapacity capacity;
    private final UnifiedJedis redis;
    private final Function<String, Optional<Tenant>> tenants;
    private final List<String> pools;
    private final double pinned;
    private final double headroom;
    private final Clock clock;
    private final GuaranteeSharing sharing;
    private volatile MeterRegistry registry;
    /** Pool → tenant → its per-tenant gauges, for the top tenants of the last refresh. */
    private final Map<String, Map<String, List<io.micrometer.core.instrument.Meter>>> tenantMeters = new ConcurrentHashMap<>();
    private final Map<String, PoolView> views = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("fairpix-capacity").unstarted(r));

    /**
     * @param tenants  the tenant of an id (the ingest's cached directory)
     * @param pinned   {@link AdmissionConfig#farmCapacity()}: {@link AdmissionConfig#MEASURED}, 0 (none) or a pinned C, tokens/s
     * @param headroom multiple of the measured rate handed out as C (≥ 1)
     * @param sharing  how guarantees share each pool ({@code admission.guarantee-sharing})
     */
    public FarmCapacity(UnifiedJedis redis, Function<String, Optional<Tenant>> tenants, List<String> pools, double pinned, double headroom,
                        FarmShare.Sharing sharing, Clock clock) {
        if (!(headroom >= 1)) throw new IllegalArgumentException("headroom must be >= 1: " + headroom);
        this.redis = redis;
        this.capacity = new PoolCapacity(redis);
        this.tenants = tenants;
        this.pools = List.copyOf(pools);
        this.pinned = pinned;
        this.headroom = headroom;
        this.clock = clock;
        this.sharing = new GuaranteeSharing(sharing, new RedisDemand(redis), tenants);
        PoolView unknown = new PoolView(0, 0, 0, Double.NaN, 0, 0, Share.NONE, GuaranteeSharing.PoolShares.none(sharing), 0);
        for (String pool : pools) views.put(pool, unknown);
    }

    /** Starts the background refresh (the first one at once); returns this. */
    public FarmCapacity start() {
        timer.scheduleWithFixedDelay(this::refresh, 0, REFRESH.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * Gauges per pool: the capacity admission uses, the guarantees' sum, the overcommit ratio, the
     * scale, the active tenants, the demand; and per tenant, for the {@link GuaranteeSharing#TOP}
     * tenants asking most in each pool only (bounded labels: a tenant that leaves the top loses its
     * series at the next refresh), its demand and guarantee.
     */
    public FarmCapacity bindTo(MeterRegistry registry) {
        this.registry = registry;
        for (String pool : pools) {
            Gauge.builder(MetricNames.ADMISSION_DEMAND, () -> view(pool).sharing().demand()).tag("pool", pool)
                    .description("tokens/s the pool's tenants asked (admitted or refused) over the last 4 s, all ingest nodes, each up to its rate").register(registry);
            Gauge.builder(MetricNames.ADMISSION_CAPACITY, () -> view(pool).share().capacity()).tag("pool", pool)
                    .description("capacity C admission hands out in the pool, tokens/s (measured service rate x headroom, or pinned; 0 = none)").register(registry);
            Gauge.builder(MetricNames.ADMISSION_GUARANTEES, () -> view(pool).guarantees()).tag("pool", pool)
                    .description("sum of the guaranteed rates of the pool's tenants active in the last 120 s, tokens/s").register(registry);
            Gauge.builder(MetricNames.ADMISSION_OVERCOMMIT, () -> view(pool).overcommit()).tag("pool", pool)
                    .description("sum of active tenants' guarantees / the pool's measured capacity (above 1: guarantees are scaled down)").register(registry);
            Gauge.builder(MetricNames.ADMISSION_GUARANTEE_SCALE, () -> view(pool).share().guaranteeScale()).tag("pool", pool)
                    .description("factor applied to every guaranteed rate in the pool: max-min, the water level (a tenant is guaranteed it x min(rate, measured capacity)); proportional, min(1, measured capacity / sum of guarantees)").register(registry);
            Gauge.builder(MetricNames.ADMISSION_ACTIVE_TENANTS, () -> view(pool).activeTenants()).tag("pool", pool)
                    .description("tenants that had a job accepted into the pool in the last 120 s").register(registry);
        }
        return this;
    }

    @Override
    public Share of(String pool) {
        return view(pool).share();
    }

    /** Counts a decision's demand in memory, O(1); the next refresh flushes it ({@link GuaranteeSharing#asked}). */
    @Override
    public void asked(String pool, String tenant, long costNano) {
        sharing.asked(pool, tenant, costNano);
    }

    /** Whether {@code tenant} asked more than its guarantee in {@code pool} at the last refresh, O(1) (a set lookup). */
    @Override
    public boolean overShare(String pool, String tenant) {
        return view(pool).sharing().overShare().contains(tenant);
    }

    /** The rule guarantees are shared by. */
    public FarmShare.Sharing sharing() { return sharing.sharing(); }

    /** The pool's figures as last refreshed. */
    public PoolView view(String pool) {
        return views.getOrDefault(pool, PoolView.UNKNOWN);
    }

    /** Refreshes every pool once (the timer's task; tests call it directly). A pool whose reading fails keeps its last view. */
    public void refresh() {
        for (String pool : pools) {
            try {
                views.put(pool, read(pool, view(pool)));
                tenantGauges(pool);
            } catch (RuntimeException e) {
                log.debug("capacity refresh of pool {} failed (keeping the last view): {}", pool, e.toString());
            }
        }
    }

    private PoolView read(String pool, PoolView last) {
        long now = clock.millis();
        PoolCapacity.Measured m = capacity.read(pool, clock.instant());
        double lastMeasured = m.costPerSecond() > 0 ? m.costPerSecond() : last.lastMeasured();
        List<String> active = activeTenants(pool, now);
        double sum = 0;
        int counted = 0;
        for (String id : active) {
            Optional<Tenant> t = tenants.apply(id);
            // A tenant counts in every pool it sent jobs to lately (a spec may name another pool than the tenant's).
            if (t.isPresent() && t.get().state() == TenantState.ACTIVE) {
                sum += t.get().rate();
                counted++;
            }
        }
        double base = pinned > 0 ? pinned : pinned == AdmissionConfig.MEASURED ? lastMeasured : 0;
        double c = pinned > 0 ? pinned : base * headroom;
        GuaranteeSharing.PoolShares shares = sharing.share(pool, Math.floorDiv(now, 1000), c, base, Share.of(c, base, sum));
        return new PoolView(m.costPerSecond(), m.replicaCount(), lastMeasured, sum, counted, base, shares.share(), shares, now);
    }

    /** Registers the gauges of the pool's top tenants that have none, and removes those of tenants that left the top. */
    private void tenantGauges(String pool) {
        MeterRegistry r = registry;
        if (r == null) return;
        Map<String, List<io.micrometer.core.instrument.Meter>> meters = tenantMeters.computeIfAbsent(pool, p -> new ConcurrentHashMap<>());
        java.util.Set<String> top = new java.util.HashSet<>();
        for (GuaranteeSharing.TenantShare t : view(pool).sharing().top()) top.add(t.tenant());
        for (var it = meters.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (!top.contains(e.getKey())) {
                e.getValue().forEach(r::remove);
                it.remove();
            }
        }
        for (String tenant : top) {
            meters.computeIfAbsent(tenant, t -> List.of(
                    Gauge.builder(MetricNames.ADMISSION_TENANT_DEMAND, () -> tenantFigure(pool, t, true)).tags("pool", pool, "tenant", t)
                            .description("tokens/s the tenant asked in the pool over the last 4 s, all ingest nodes (the 10 tenants asking most only)").register(r),
                    Gauge.builder(MetricNames.ADMISSION_TENANT_GUARANTEE, () -> tenantFigure(pool, t, false)).tags("pool", pool, "tenant", t)
                            .description("guaranteed rate admission gives the tenant in the pool now, tokens/s (the 10 tenants asking most only)").register(r)));
        }
    }

    private double tenantFigure(String pool, String tenant, boolean demand) {
        for (GuaranteeSharing.TenantShare t : view(pool).sharing().top()) {
            if (t.tenant().equals(tenant)) return demand ? t.demand() : t.guarantee();
        }
        return Double.NaN;
    }

    /** Tenants that had a job accepted into the pool within the window (the set JobSubmitter keeps; the autoscaler trims it). */
    private List<String> activeTenants(String pool, long nowMillis) {
        return List.copyOf(redis.zrangeByScore(RedisKeys.activeTenants(pool), (nowMillis - ACTIVE_WINDOW.toMillis()) / 1000.0, Double.POSITIVE_INFINITY));
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
