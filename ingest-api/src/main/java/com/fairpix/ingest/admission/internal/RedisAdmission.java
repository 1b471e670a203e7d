package com.fairpix.ingest.admission.internal;

import com.fairpix.core.admission.AdmissionLeases;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.admission.Admission;
import com.fairpix.ingest.admission.AdmissionConfig;
import com.fairpix.ingest.admission.Decision;
import com.fairpix.ingest.admission.FarmShare;
import com.fairpix.ingest.admission.Limits;
import com.fairpix.ingest.admission.Policy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.LongSupplier;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * Admission shared by every ingest node through Redis: one {@code EVALSHA} of
 * {@code admission.lua} per decision on the tenant's two keys (one Redis Cluster slot), timed by
 * Redis's own {@code TIME} (never a node's clock), so two nodes can never both spend the same
 * token of a tenant. The pool's borrowing bucket is leased in chunks by each node
 * ({@link PoolLease}, {@code pool-lease.lua}): about one extra round trip per
 * {@code C × admission.pool-lease-millis} tokens, none per decision.
 *
 * <p>Redis errors ({@link redis.clients.jedis.exceptions.JedisException}) propagate; {@link FailoverAdmission}
 * decides what an outage means.
 */
public final class RedisAdmission implements Admission {
    /** The decision script as sent to Redis: buckets.lua's arithmetic, then admission.lua. */
    public static final String SCRIPT = load("/admission/buckets.lua") + load("/admission/admission.lua");
    /** The lease script as sent to Redis: buckets.lua's arithmetic, then pool-lease.lua. */
    public static final String LEASE_SCRIPT = load("/admission/buckets.lua") + load("/admission/pool-lease.lua");
    private static final String SCRIPT_SHA = sha1(SCRIPT);
    private static final String LEASE_SHA = sha1(LEASE_SCRIPT);

    private final UnifiedJedis redis;
    private final AdmissionLeases jobLeases;
    private final AdmissionConfig config;
    private final FarmShare share;
    /** The node's clock for its pool leases, µs (only differences are used). */
    private final LongSupplier nodeMicros;
    /** µs since the epoch passed to the scripts instead of Redis {@code TIME} ({@link #onTestClock}); null in production. */
    private final LongSupplier testClock;
    private final java.util.concurrent.ConcurrentHashMap<String, PoolLease> leases = new java.util.concurrent.ConcurrentHashMap<>();

    /** With the config's own capacity (pinned, or none). @param nanos monotonic clock, ns, that times the pool leases */
    public RedisAdmission(UnifiedJedis redis, AdmissionConfig config, LongSupplier nanos) {
        this(redis, config, FarmShare.fixed(config.farmCapacity()), nanos);
    }

    /**
     * Decisions timed by Redis {@code TIME}, this node's pool leases by {@code nanos}.
     *
     * @param share each pool's capacity and guarantee scale, read on every decision
     * @param nanos monotonic clock, nanoseconds, that times the pool leases
     */
    public RedisAdmission(UnifiedJedis redis, AdmissionConfig config, FarmShare share, LongSupplier nanos) {
        this(redis, config, share, () -> nanos.getAsLong() / 1000, null);
    }

    private RedisAdmission(UnifiedJedis redis, AdmissionConfig config, FarmShare share, LongSupplier nodeMicros, LongSupplier testClock) {
        this.redis = redis;
        this.jobLeases = new AdmissionLeases(redis);
        this.config = config;
        this.share = share;
        this.nodeMicros = nodeMicros;
        this.testClock = testClock;
    }

    /**
     * For tests that move time by hand against the real Redis: {@code micros} (µs since the epoch)
     * is passed to the scripts instead of Redis {@code TIME} and times the pool leases too.
     */
    public static RedisAdmission onTestClock(UnifiedJedis redis, AdmissionConfig config, FarmShare share, LongSupplier micros) {
        return new RedisAdmission(redis, config, share, micros, micros);
    }

    @Override
    public Decision decide(Tenant tenant, String pool, long cost, String jobId) {
        Limits l = Limits.of(tenant, config, share.of(pool));
        PoolLease lease = null;
        PoolLease.Reservation reservation = NONE;
        if (l.borrowing() && cost <= l.maxCostNano()) {
            lease = lease(pool);
            reservation = lease.reserve(l, cost, testMicros());
        }
        List<?> r;
        try {
            r = run(tenant.id(), "decide", l, cost, reservation, jobId);
        } catch (RuntimeException e) {
            if (lease != null) lease.settle(reservation, cost, 0);
            throw e;
        }
        if (lease != null) lease.settle(reservation, cost, (int) num(r.get(9)));
        // Demand counts once the decision is made (a failed script is counted by the fallback that answers
        // instead), for every request that could ever fit (a 422 is about the job, not the rate asked).
        if (cost <= l.maxCostNano()) share.asked(pool, tenant.id(), cost);
        boolean allowed = num(r.get(0)) == 1;
        return new Decision(allowed, Policy.fromMask((int) num(r.get(1))), Policy.fromMask((int) num(r.get(2))), cost,
                num(r.get(3)), num(r.get(4)), num(r.get(5)), num(r.get(6)), num(r.get(7)), num(r.get(8)), l, false);
    }

    @Override
    public Decision standing(Tenant tenant) {
        Limits l = Limits.of(tenant, config, share.of(tenant.pool()));
        List<?> r = run(tenant.id(), "peek", l, 0, NONE, null);
        return new Decision(true, java.util.Set.of(), java.util.Set.of(), 0, 0, num(r.get(4)), num(r.get(5)), num(r.get(6)), 0, num(r.get(8)), l, false);
    }

    @Override
    public void charge(Tenant tenant, long cost) {
        Limits l = Limits.of(tenant, config, share.of(tenant.pool()));
        run(tenant.id(), "charge", l, cost, NONE, null);
        if (l.borrowing()) lease(tenant.pool()).charge(cost);
    }

    private static final PoolLease.Reservation NONE = new PoolLease.Reservation(0, 0);

    private PoolLease lease(String pool) {
        return leases.computeIfAbsent(pool, p -> new PoolLease(
                (rate, burst, settle, want, now) -> leaseFromRedis(p, rate, burst, settle, want, now),
                config.poolLease().toNanos() / 1000, nodeMicros));
    }

    private PoolLease.Grant leaseFromRedis(String pool, long rate, long burst, long settle, long want, long now) {
        List<?> r = (List<?>) eval(LEASE_SHA, LEASE_SCRIPT, List.of(RedisKeys.admissionPool(pool)),
                List.of(now < 0 ? "" : Long.toString(now), Long.toString(rate), Long.toString(burst), Long.toString(settle), Long.toString(want)));
        return new PoolLease.Grant(num(r.get(0)), num(r.get(1)), num(r.get(2)));
    }

    private long testMicros() { return testClock == null ? -1 : testClock.getAsLong(); }

    @Override
    public void release(String tenant, String jobId) {
        jobLeases.release(tenant, jobId);
    }

    private List<?> run(String tenant, String op, Limits l, long cost, PoolLease.Reservation reservation, String jobId) {
        boolean borrow = l.borrowing();
        List<String> keys = List.of(RedisKeys.admission(tenant), RedisKeys.admissionLeases(tenant), RedisKeys.admissionBeforeUpgrade(tenant), RedisKeys.trueUp(tenant));
        List<String> args = List.of(testClock == null ? "" : Long.toString(testClock.getAsLong()), op, Long.toString(cost),
                Long.toString(l.rateMilli()), Long.toString(l.burstNano()),
                borrow ? Long.toString(l.ceilRateMilli()) : "0", borrow ? Long.toString(l.ceilBurstNano()) : "0",
                Long.toString(reservation.reservedNano()), Long.toString(reservation.waitMicros()), Long.toString(l.dailyQuota()),
                Long.toString(l.dayOffsetMicros()), Integer.toString(l.maxConcurrent()), Long.toString(l.leaseTtlMicros()),
                jobId == null ? "" : jobId, Integer.toString(config.shadowMask()));
        return (List<?>) eval(SCRIPT_SHA, SCRIPT, keys, args);
    }

    /**
     * EVALSHA, or EVAL where the node (a restarted one, a new cluster master) does not have the
     * script yet; EVAL caches it there. The SHA is computed here, so no SCRIPT LOAD is needed on
     * any node of a cluster.
     */
    private Object eval(String sha, String script, List<String> keys, List<String> args) {
        try {
            return redis.evalsha(sha, keys, args);
        } catch (JedisNoScriptException e) {
            return redis.eval(script, keys, args);
        }
    }

    private static long num(Object o) {
        if (o instanceof Long l) return l;
        if (o instanceof byte[] b) return Long.parseLong(new String(b, StandardCharsets.US_ASCII));
        return Long.parseLong(String.valueOf(o));
    }

    private static String sha1(String script) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-1").digest(script.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String load(String resource) {
        try (InputStream in = RedisAdmission.class.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalStateException(resource + " missing from the classpath");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
