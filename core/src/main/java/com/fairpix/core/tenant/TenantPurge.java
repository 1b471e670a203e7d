package com.fairpix.core.tenant;

import com.fairpix.core.pool.Pool;
import com.fairpix.core.redis.RedisKeys;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * Removes a deleted tenant's state from Redis: its admission buckets, daily quota and concurrency
 * leases, its parked (held) jobs, its webhook deliveries, dead letters, disabled URLs, previous
 * secret and due set, and its entries in the farm-wide sets (held tenants, active tenants per pool,
 * tenants with due deliveries). What stays, each expiring on its own (docs/hostile-tenants.md,
 * <i>Per-tenant state</i>): the tenant's record (the tombstone that keeps its id taken), its job
 * records, job index and job owners ({@code jobs.retention-seconds}), its idempotency claims
 * (24 h), and the per-second demand hashes (seconds).
 *
 * <p>Each script touches one Redis Cluster slot: the tenant's keys share its hash tag, the due
 * keys share {@code {wh}}; the farm-wide sets are one command each. Idempotent: deleting again
 * finds nothing.
 */
public final class TenantPurge {
    /**
     * KEYS[1] a sorted set of delivery ids; ARGV[1] the prefix of a delivery's key. Deletes up to
     * 1000 of the records it names and their members; returns how many.
     */
    private static final String DROP_DELIVERIES = """
            local ids = redis.call('ZRANGE', KEYS[1], 0, 999)
            for _, id in ipairs(ids) do redis.call('DEL', ARGV[1] .. id) end
            if #ids > 0 then redis.call('ZREM', KEYS[1], unpack(ids)) end
            return #ids
            """;
    /** KEYS: tenants with due work, the tenant's due set; ARGV: the tenant. */
    private static final String DROP_DUE = """
            redis.call('DEL', KEYS[2])
            redis.call('ZREM', KEYS[1], ARGV[1])
            return 1
            """;

    private final UnifiedJedis redis;

    public TenantPurge(UnifiedJedis redis) {
        this.redis = redis;
    }

    /** Removes {@code tenant}'s state (see the class comment); returns the number of deliveries dropped. */
    public long purge(String tenant) {
        String deliveryPrefix = RedisKeys.webhookDelivery(tenant, "");
        long dropped = 0;
        for (String index : List.of(RedisKeys.webhookDeliveries(tenant), RedisKeys.webhookDead(tenant))) {
            for (long n; (n = (Long) redis.eval(DROP_DELIVERIES, List.of(index), List.of(deliveryPrefix))) > 0; ) dropped += n;
        }
        redis.eval(DROP_DUE, List.of(RedisKeys.webhookDueTenants(), RedisKeys.webhookTenantDue(tenant)), List.of(tenant));
        // One DEL: the keys share the tenant's slot.
        redis.del(RedisKeys.admission(tenant), RedisKeys.admissionBeforeUpgrade(tenant), RedisKeys.admissionLeases(tenant), RedisKeys.trueUp(tenant),
                RedisKeys.heldJobs(tenant), RedisKeys.heldLock(tenant), RedisKeys.webhookDisabled(tenant),
                RedisKeys.webhookPreviousSecret(tenant), RedisKeys.tenantKeys(tenant));
        redis.srem(RedisKeys.heldTenants(), tenant);
        for (Pool p : Pool.values()) redis.zrem(RedisKeys.activeTenants(p.wire()), tenant);
        return dropped;
    }
}
