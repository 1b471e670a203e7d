package com.fairpix.ingest.admission.internal;

import com.fairpix.core.admission.TokenBucket;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.admission.Admission;
import com.fairpix.ingest.admission.AdmissionConfig;
import com.fairpix.ingest.admission.Decision;
import com.fairpix.ingest.admission.FarmShare;
import com.fairpix.ingest.admission.Limits;
import com.fairpix.ingest.admission.Policy;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * Admission in this JVM's memory: the same algorithm as {@code admission.lua}, decided under a
 * per-tenant lock (and the pool's lock when borrowing), timed by an injectable {@link Clock}.
 * Used for tests, as the fail-open budget while Redis is away, and as the benchmark's local path.
 *
 * <p>O(1) per decision (plus the tenant's own expired leases): state exists only for tenants that
 * asked, and nothing walks over all tenants.
 */
public final class LocalAdmission implements Admission {
    static final long DAY_MICROS = 86_400_000_000L;
    /** Debt floor of the guaranteed bucket, nanotokens (1e6 tokens): keeps values below 2^53. */
    static final long DEBT_FLOOR = -1_000_000L * Limits.NANO;

    private final AdmissionConfig config;
    private final Clock clock;
    private final FarmShare share;
    private final UnaryOperator<Limits> limitsAdjust;
    private final Map<String, TenantState> tenants = new ConcurrentHashMap<>();
    /** Worker pool → its borrowing bucket. */
    private final Map<String, PoolState> pools = new ConcurrentHashMap<>();

    /** With the config's own capacity (pinned, or none). */
    public LocalAdmission(AdmissionConfig config, Clock clock) {
        this(config, clock, FarmShare.fixed(config.farmCapacity()), UnaryOperator.identity());
    }

    /** @param limitsAdjust applied to every tenant's limits (the fail-open per-node share) */
    public LocalAdmission(AdmissionConfig config, Clock clock, UnaryOperator<Limits> limitsAdjust) {
        this(config, clock, FarmShare.fixed(config.farmCapacity()), limitsAdjust);
    }

    /** @param share each pool's capacity and guarantee scale, read on every decision */
    public LocalAdmission(AdmissionConfig config, Clock clock, FarmShare share, UnaryOperator<Limits> limitsAdjust) {
        this.config = config;
        this.clock = clock;
        this.share = share;
        this.limitsAdjust = limitsAdjust;
    }

    private Limits limits(Tenant tenant, String pool) {
        return limitsAdjust.apply(Limits.of(tenant, config, share.of(pool)));
    }

    static final class TenantState {
        boolean started;
        long p, pt, q, qt;
        long day = Long.MIN_VALUE, dayCount;
        final Map<String, Long> leases = new HashMap<>();
    }

    static final class PoolState {
        boolean started;
        long g, gt;
    }

    @Override
    public Decision decide(Tenant tenant, String poolName, long cost, String jobId) {
        Limits l = limits(tenant, poolName);
        // Demand: every request that could ever fit, admitted or refused (a 422 is about the job, not the rate asked).
        if (cost <= l.maxCostNano()) share.asked(poolName, tenant.id(), cost);
        long now = micros(clock.instant());
        TenantState s = tenants.computeIfAbsent(tenant.id(), k -> new TenantState());
        PoolState pool = pools.computeIfAbsent(poolName, k -> new PoolState());
        synchronized (s) {
            if (l.borrowing()) {
                synchronized (pool) {
                    return decide(s, pool, l, cost, jobId, now);
                }
            }
            return decide(s, pool, l, cost, jobId, now);
        }
    }

    private Decision decide(TenantState s, PoolState pool, Limits l, long cost, String jobId, long now) {
        boolean borrow = l.borrowing();
        refill(s, pool, l, now, borrow);
        if (cost > l.maxCostNano()) {
            return new Decision(false, Policy.fromMask(Policy.COST_EXCEEDS_BURST.bit()), java.util.Set.of(), cost, 0, s.p, s.dayCount, s.leases.size(), 0, now, l, false);
        }
        int violated = 0;
        long retry = 0;
        // Daily quota: a counter per quota day; the day index comes from the same clock.
        long day = Math.floorDiv(now - l.dayOffsetMicros(), DAY_MICROS);
        if (s.day != day) {
            s.day = day;
            s.dayCount = 0;
        }
        if (s.dayCount + 1 > l.dailyQuota()) {
            violated |= Policy.DAILY_QUOTA.bit();
            retry = Math.max(retry, (day + 1) * DAY_MICROS + l.dayOffsetMicros() - now);
        }
        // Concurrency: expired leases (a crashed worker's) free their slot.
        long earliest = Long.MAX_VALUE;
        for (Iterator<Long> it = s.leases.values().iterator(); it.hasNext(); ) {
            long exp = it.next();
            if (exp <= now) it.remove();
            else earliest = Math.min(earliest, exp);
        }
        if (s.leases.size() >= l.maxConcurrent()) {
            violated |= Policy.CONCURRENCY.bit();
            // A slot frees when a job ends (unknown) or at the latest when the first lease expires.
            retry = Math.max(retry, Math.min(earliest - now, 1_000_000L));
        }
        // Rate: guaranteed bucket first, then borrowing within the ceiling from the farm's pool.
        int path = 0;
        if (s.p >= cost) {
            path = 1;
        } else if (borrow && s.q >= cost && pool.g >= cost) {
            path = 2;
        } else {
            violated |= Policy.RATE.bit();
            long wait = TokenBucket.wait(s.p, cost, l.rateMilli());
            if (borrow) {
                long viaPool = Math.max(TokenBucket.wait(s.q, cost, l.ceilRateMilli()), TokenBucket.wait(pool.g, cost, l.poolRateMilli()));
                wait = Math.min(wait, viaPool);
            }
            retry = Math.max(retry, wait);
        }
        int shadow = config.shadowMask() & violated;
        int enforced = violated & ~shadow;
        long borrowed = 0;
        if (enforced != 0) {
            return new Decision(false, Policy.fromMask(enforced), Policy.fromMask(shadow), cost, retry, s.p, s.dayCount, s.leases.size(), 0, now, l, false);
        }
        s.dayCount++;
        if (jobId != null) s.leases.put(jobId, now + l.leaseTtlMicros());
        if (path == 1) {
            s.p -= cost;
            if (borrow) {
                // Guaranteed work still counts against the ceiling and the farm (HTB): it is what
                // stops borrowers when guaranteed tenants come back.
                s.q = Math.max(s.q - cost, -l.ceilBurstNano());
                pool.g = Math.max(pool.g - cost, -l.poolBurstNano());
            }
        } else if (path == 2) {
            s.q -= cost;
            pool.g -= cost;
            borrowed = cost;
        } // path 0: rate violated in shadow mode; the bucket mirrors what enforcement would hold
        return new Decision(true, java.util.Set.of(), Policy.fromMask(shadow), cost, 0, s.p, s.dayCount, s.leases.size(), borrowed, now, l, false);
    }

    private static void refill(TenantState s, PoolState pool, Limits l, long now, boolean borrow) {
        if (!s.started) {
            s.started = true;
            s.p = l.burstNano();
            s.pt = now;
            s.q = l.ceilBurstNano();
            s.qt = now;
        }
        s.p = TokenBucket.refill(s.p, s.pt, now, l.rateMilli(), l.burstNano());
        s.pt = Math.max(s.pt, now);
        if (borrow) {
            s.q = TokenBucket.refill(s.q, s.qt, now, l.ceilRateMilli(), l.ceilBurstNano());
            s.qt = Math.max(s.qt, now);
            if (!pool.started) {
                pool.started = true;
                pool.g = l.poolBurstNano();
                pool.gt = now;
            }
            pool.g = TokenBucket.refill(pool.g, pool.gt, now, l.poolRateMilli(), l.poolBurstNano());
            pool.gt = Math.max(pool.gt, now);
        }
    }

    @Override
    public Decision standing(Tenant tenant) {
        Limits l = limits(tenant, tenant.pool());
        long now = micros(clock.instant());
        TenantState s = tenants.get(tenant.id());
        if (s == null) return new Decision(true, java.util.Set.of(), java.util.Set.of(), 0, 0, l.burstNano(), 0, 0, 0, now, l, false);
        synchronized (s) {
            long p = s.started ? TokenBucket.refill(s.p, s.pt, now, l.rateMilli(), l.burstNano()) : l.burstNano();
            long day = Math.floorDiv(now - l.dayOffsetMicros(), DAY_MICROS);
            long live = s.leases.values().stream().filter(exp -> exp > now).count();
            return new Decision(true, java.util.Set.of(), java.util.Set.of(), 0, 0, p, s.day == day ? s.dayCount : 0, live, 0, now, l, false);
        }
    }

    @Override
    public void charge(Tenant tenant, long cost) {
        Limits l = limits(tenant, tenant.pool());
        long now = micros(clock.instant());
        TenantState s = tenants.computeIfAbsent(tenant.id(), k -> new TenantState());
        PoolState pool = pools.computeIfAbsent(tenant.pool(), k -> new PoolState());
        boolean borrow = l.borrowing();
        synchronized (s) {
            synchronized (pool) {
                refill(s, pool, l, now, borrow);
                s.p = Math.max(s.p - cost, DEBT_FLOOR);
                if (borrow) {
                    s.q = Math.max(s.q - cost, -l.ceilBurstNano());
                    pool.g = Math.max(pool.g - cost, -l.poolBurstNano());
                }
            }
        }
    }

    @Override
    public void release(String tenant, String jobId) {
        TenantState s = tenants.get(tenant);
        if (s == null) return;
        synchronized (s) {
            s.leases.remove(jobId);
        }
    }

    /** Tenants with state in memory (a test holds memory to the active ones, not every registered one). */
    public int trackedTenants() { return tenants.size(); }

    static long micros(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
    }
}
