package com.fairpix.ingest.admission.internal;

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
 * {@code admission.lua} per decision, timed by Redis's own {@code TIME} (never a node's clock),
 * so two nodes can never both spend the same token.
 *
 * <p>Redis errors ({@link redis.clients.jedis.exceptions.JedisException}) propagate; {@link FailoverAdmission}
 * decides what an outage means.
 */
public final class RedisAdmission implements Admission {
    public static final String SCRIPT = load();

    private final UnifiedJedis redis;
    private final AdmissionConfig config;
    private final FarmShare share;
    private final LongSupplier testClock;
    private volatile String sha;

    /** With the config's own capacity (pinned, or none). */
    public RedisAdmission(UnifiedJedis redis, AdmissionConfig config) {
        this(redis, config, FarmShare.fixed(config.farmCapacity()), null);
    }

    public RedisAdmission(UnifiedJedis redis, AdmissionConfig config, FarmShare share) {
        this(redis, config, share, null);
    }

    /**
     * @param testClock µs since the epoch passed to the script instead of Redis {@code TIME}, for
     *                  tests that move time by hand against the real Redis; null in production
     */
    public RedisAdmission(UnifiedJedis redis, AdmissionConfig config, LongSupplier testClock) {
        this(redis, config, FarmShare.fixed(config.farmCapacity()), testClock);
    }

    /** @param share each pool's capacity and guarantee scale, read on every decision */
    public RedisAdmission(UnifiedJedis redis, AdmissionConfig config, FarmShare share, LongSupplier testClock) {
        this.redis = redis;
        this.config = config;
        this.share = share;
        this.testClock = testClock;
    }

    @Override
    public Decision decide(Tenant tenant, String pool, long cost, String jobId) {
        Limits l = Limits.of(tenant, config, share.of(pool));
        List<?> r = run(tenant.id(), pool, "decide", l, cost, jobId);
        boolean allowed = num(r.get(0)) == 1;
        return new Decision(allowed, Policy.fromMask((int) num(r.get(1))), Policy.fromMask((int) num(r.get(2))), cost,
                num(r.get(3)), num(r.get(4)), num(r.get(5)), num(r.get(6)), num(r.get(7)), num(r.get(8)), l, false);
    }

    @Override
    public void charge(Tenant tenant, long cost) {
        run(tenant.id(), tenant.pool(), "charge", Limits.of(tenant, config, share.of(tenant.pool())), cost, null);
    }

    @Override
    public void release(String tenant, String jobId) {
        redis.zrem(RedisKeys.admissionLeases(tenant), jobId);
    }

    private List<?> run(String tenant, String pool, String op, Limits l, long cost, String jobId) {
        List<String> keys = List.of(RedisKeys.admission(tenant), RedisKeys.admissionLeases(tenant), RedisKeys.admissionPool(pool));
        List<String> args = List.of(testClock == null ? "" : Long.toString(testClock.getAsLong()), op, Long.toString(cost),
                Long.toString(l.rateMilli()), Long.toString(l.burstNano()), Long.toString(l.ceilRateMilli()), Long.toString(l.ceilBurstNano()),
                Long.toString(l.poolRateMilli()), Long.toString(l.poolBurstNano()), Long.toString(l.dailyQuota()),
                Long.toString(l.dayOffsetMicros()), Integer.toString(l.maxConcurrent()), Long.toString(l.leaseTtlMicros()),
                jobId == null ? "" : jobId, Integer.toString(config.shadowMask()));
        String current = sha;
        if (current == null) current = sha = redis.scriptLoad(SCRIPT);
        try {
            return (List<?>) redis.evalsha(current, keys, args);
        } catch (JedisNoScriptException e) {
            // Redis restarted and lost its script cache: send the script itself this once.
            sha = null;
            return (List<?>) redis.eval(SCRIPT, keys, args);
        }
    }

    private static long num(Object o) {
        if (o instanceof Long l) return l;
        if (o instanceof byte[] b) return Long.parseLong(new String(b, StandardCharsets.US_ASCII));
        return Long.parseLong(String.valueOf(o));
    }

    private static String load() {
        try (InputStream in = RedisAdmission.class.getResourceAsStream("/admission/admission.lua")) {
            if (in == null) throw new IllegalStateException("admission/admission.lua missing from the classpath");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
