package com.fairpix.ingest.admission;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * Farm-wide admission settings (per-tenant limits come from the tenant record). Keys, docs and
 * each value's bounds are declared once in {@link Setting} ({@code admission.*}).
 *
 * @param farmCapacity     farm capacity C of every pool, tokens/s, pinned; {@link #MEASURED} = each pool's measured
 *                         capacity (the ingest's {@code FarmCapacity}); 0 = none (no borrowing, guarantees unscaled)
 * @param poolBurst        size of a pool's borrowing bucket, tokens (0 = one second of capacity)
 * @param ceilingFactor    a tenant's ceiling rate as a multiple of its guaranteed rate (≥ 1)
 * @param costBase         tokens every job costs
 * @param costPerMegapixel tokens per decoded megapixel per variant
 * @param leaseTtl         lifetime of a concurrency lease the worker never released
 * @param redisDown        what to do when Redis is unreachable
 * @param nodes            ingest nodes sharing the farm (divides the fail-open budget)
 * @param shadow           policies decided and counted but not enforced
 * @param dayOffset        start of the quota day after 00:00 UTC
 * @param redisRetry       how long a node stays on its fallback before trying Redis again
 * @param poolLease        lease period P of the pool's borrowing bucket: a node leases C × P tokens at a time
 * @param costModel        how a job's cost is worked out ({@code admission.cost-model})
 */
public record AdmissionConfig(double farmCapacity, double poolBurst, double ceilingFactor, double costBase,
                              double costPerMegapixel, Duration leaseTtl, RedisDown redisDown, int nodes,
                              Set<Policy> shadow, Duration dayOffset, Duration redisRetry, Duration poolLease, CostModel costModel) {

    /** How a job's cost in tokens is worked out. */
    public enum CostModel {
        /** {@code cost-base} + the job's estimated CPU time in tokens ({@link com.fairpix.core.job.JobCost}), trued up after the job. */
        WORK,
        /** {@code cost-base + cost-per-megapixel × Σ max(1, MP)} over the variants (releases before issue 33). */
        MEGAPIXELS
    }

    /** Behaviour while Redis is unreachable. */
    public enum RedisDown {
        /** Admit on a local per-node budget (the tenant's rate ÷ nodes). */
        OPEN,
        /** Answer 503 with {@code Retry-After}. */
        CLOSED
    }

    /** {@link #farmCapacity()} when each pool's capacity is measured ({@code admission.farm-capacity=measured}, the default). */
    public static final double MEASURED = -1;

    public AdmissionConfig {
        shadow = shadow.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(shadow));
    }

    /** In-memory defaults for tests and benches: no farm capacity (no borrowing), everything else as shipped. */
    public static AdmissionConfig defaults() {
        return new AdmissionConfig(0, 0, 2, 0, 1, Duration.ofMinutes(15), RedisDown.OPEN, 1, Set.of(), Duration.ZERO, Duration.ofSeconds(1), DEFAULT_POOL_LEASE, CostModel.WORK);
    }

    /** {@code admission.pool-lease-millis}' default. */
    public static final Duration DEFAULT_POOL_LEASE = Duration.ofMillis(50);

    /** The {@code admission.*} settings; each value's constraint has bounded it on load. */
    public static AdmissionConfig from(FairpixConfig config) {
        Set<Policy> shadow = EnumSet.noneOf(Policy.class);
        for (String id : config.list(Setting.ADMISSION_SHADOW)) shadow.add(Policy.byId(id));
        boolean measured = config.get(Setting.ADMISSION_FARM_CAPACITY).trim().equalsIgnoreCase("measured");
        return new AdmissionConfig(measured ? MEASURED : config.decimal(Setting.ADMISSION_FARM_CAPACITY), config.decimal(Setting.ADMISSION_POOL_BURST),
                config.decimal(Setting.ADMISSION_CEILING_FACTOR), config.decimal(Setting.ADMISSION_COST_BASE),
                config.decimal(Setting.ADMISSION_COST_PER_MEGAPIXEL), Duration.ofSeconds(config.longValue(Setting.ADMISSION_LEASE_TTL_SECONDS)),
                config.choice(Setting.ADMISSION_REDIS_DOWN, RedisDown.class), config.integer(Setting.ADMISSION_NODES), shadow,
                Duration.ofSeconds(config.longValue(Setting.ADMISSION_DAY_OFFSET_SECONDS)),
                Duration.ofSeconds(1), Duration.ofMillis(config.longValue(Setting.ADMISSION_POOL_LEASE_MILLIS)),
                config.choice(Setting.ADMISSION_COST_MODEL, CostModel.class));
    }

    /** Whether each pool's capacity is measured rather than pinned. */
    public boolean measuredCapacity() { return farmCapacity == MEASURED; }

    public int shadowMask() { return Policy.mask(shadow); }

    public AdmissionConfig withCostModel(CostModel model) {
        return new AdmissionConfig(farmCapacity, poolBurst, ceilingFactor, costBase, costPerMegapixel, leaseTtl, redisDown, nodes, shadow, dayOffset, redisRetry, poolLease, model);
    }

    public AdmissionConfig withFarmCapacity(double capacity, double ceiling) {
        return new AdmissionConfig(capacity, poolBurst, ceiling, costBase, costPerMegapixel, leaseTtl, redisDown, nodes, shadow, dayOffset, redisRetry, poolLease, costModel);
    }

    public AdmissionConfig withShadow(Set<Policy> policies) {
        return new AdmissionConfig(farmCapacity, poolBurst, ceilingFactor, costBase, costPerMegapixel, leaseTtl, redisDown, nodes, policies, dayOffset, redisRetry, poolLease, costModel);
    }

    public AdmissionConfig withRedisDown(RedisDown down, int nodeCount) {
        return new AdmissionConfig(farmCapacity, poolBurst, ceilingFactor, costBase, costPerMegapixel, leaseTtl, down, nodeCount, shadow, dayOffset, redisRetry, poolLease, costModel);
    }

    public AdmissionConfig withLeaseTtl(Duration ttl) {
        return new AdmissionConfig(farmCapacity, poolBurst, ceilingFactor, costBase, costPerMegapixel, ttl, redisDown, nodes, shadow, dayOffset, redisRetry, poolLease, costModel);
    }
}
