package com.fairpix.ingest.admission.internal;

import com.fairpix.core.error.RetryLater;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.admission.Admission;
import com.fairpix.ingest.admission.AdmissionConfig;
import com.fairpix.ingest.admission.Decision;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import com.fairpix.core.redis.Redis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The shared limiter, with an answer when Redis is unreachable: fail open onto a local per-node
 * budget (each tenant's rate, burst and daily quota ÷ {@code admission.nodes}, no borrowing) or
 * fail closed (503 + {@code Retry-After}).
 *
 * <p>After a failure the node stays on its fallback for {@code redisRetry} (so a dead Redis costs
 * one timeout per interval, not one per request), then tries Redis again: recovery is automatic.
 */
public final class FailoverAdmission implements Admission {
    private static final Logger log = LoggerFactory.getLogger(FailoverAdmission.class);

    private final Admission shared;
    private final LocalAdmission local;
    private final AdmissionConfig config;
    private final Clock clock;
    private final AtomicLong downUntilMillis = new AtomicLong(Long.MIN_VALUE);

    public FailoverAdmission(Admission shared, AdmissionConfig config, Clock clock) {
        this(shared, config, com.fairpix.ingest.admission.FarmShare.fixed(config.farmCapacity()), clock);
    }

    /** @param share the pools' shares; the fallback scales guarantees by them too (it never borrows) */
    public FailoverAdmission(Admission shared, AdmissionConfig config, com.fairpix.ingest.admission.FarmShare share, Clock clock) {
        this.shared = shared;
        this.config = config;
        this.clock = clock;
        this.local = new LocalAdmission(config, clock, share, l -> l.perNode(config.nodes()));
    }

    @Override
    public Decision decide(Tenant tenant, String pool, long cost, String jobId) {
        if (clock.millis() >= downUntilMillis.get()) {
            try {
                Decision d = shared.decide(tenant, pool, cost, jobId);
                if (downUntilMillis.get() != Long.MIN_VALUE) {
                    downUntilMillis.set(Long.MIN_VALUE);
                    log.info("Redis is back: admission decisions are shared again");
                }
                return d;
            } catch (JedisException e) {
                // Only an outage falls back: a refused command (a script error, WRONGTYPE) is a bug to
                // surface, not a reason to put the farm's admission on per-node budgets in silence.
                if (!Redis.isOutage(e)) throw e;
                downUntilMillis.set(clock.millis() + config.redisRetry().toMillis());
                log.warn("Redis unreachable for admission ({}); {} for {} ms", e.toString(),
                        config.redisDown() == AdmissionConfig.RedisDown.OPEN ? "admitting on the local per-node budget" : "rejecting with 503",
                        config.redisRetry().toMillis());
            }
        }
        if (config.redisDown() == AdmissionConfig.RedisDown.CLOSED) {
            throw RetryLater.dependency("redis", "Admission control cannot reach its store; try again shortly (admission.redis-down=closed).",
                    (int) Math.max(1, Math.ceilDiv(config.redisRetry().toMillis(), 1000)));
        }
        return local.decide(tenant, pool, cost, jobId).asFallback();
    }

    @Override
    public Decision standing(Tenant tenant) {
        if (clock.millis() >= downUntilMillis.get()) {
            try {
                return shared.standing(tenant);
            } catch (JedisException e) {
                if (!Redis.isOutage(e)) throw e;
            }
        }
        return local.standing(tenant).asFallback();
    }

    @Override
    public void charge(Tenant tenant, long cost) {
        try {
            shared.charge(tenant, cost);
        } catch (JedisException e) {
            if (!Redis.isOutage(e)) throw e;
            local.charge(tenant, cost);
        }
    }

    @Override
    public void release(String tenant, String jobId) {
        local.release(tenant, jobId);
        try {
            shared.release(tenant, jobId);
        } catch (JedisException e) {
            // the lease expires with its TTL
        }
    }

    /** Whether this node is on its fallback now. */
    public boolean degraded() {
        return clock.millis() < downUntilMillis.get();
    }
}
