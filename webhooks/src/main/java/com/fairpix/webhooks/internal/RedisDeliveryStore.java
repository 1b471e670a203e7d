package com.fairpix.webhooks.internal;

import com.fairpix.core.json.Json;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.webhooks.WebhookDelivery;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/**
 * Webhook deliveries in Redis: one JSON value per delivery, a per-tenant index, a per-tenant
 * dead-letter index, and the farm-wide due set that makes retries durable: a retry is a score in
 * {@link RedisKeys#webhookDue()}, so it survives any dispatcher restart.
 */
public final class RedisDeliveryStore {
    /** Claims due members by pushing their score to a lease; returns them. KEYS[1]=due, ARGV: now ms, lease ms, max. */
    private static final String CLAIM = """
            local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
            for _, m in ipairs(due) do redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), m) end
            return due
            """;

    private final UnifiedJedis redis;
    private final Duration retention;

    /** @param retention how long a delivery record is kept after its last change */
    public RedisDeliveryStore(UnifiedJedis redis, Duration retention) {
        this.redis = redis;
        this.retention = retention;
    }

    /**
     * Stores a new delivery and makes it due now, unless one with this id exists: an event consumed
     * twice (a re-run job, a redelivered Kafka record) yields one delivery.
     *
     * @return false when the delivery already existed
     */
    public boolean create(WebhookDelivery d) {
        String ok = redis.set(RedisKeys.webhookDelivery(d.tenant(), d.id()), Json.write(d), SetParams.setParams().nx().ex(retention.toSeconds()));
        if (ok == null) return false;
        long ms = d.createdAt().toEpochMilli();
        redis.zadd(RedisKeys.webhookDeliveries(d.tenant()), ms, d.id());
        redis.zremrangeByScore(RedisKeys.webhookDeliveries(d.tenant()), Double.NEGATIVE_INFINITY, ms - retention.toMillis());
        schedule(d.tenant(), d.id(), d.nextAttemptAt());
        return true;
    }

    public Optional<WebhookDelivery> get(String tenant, String id) {
        String json = redis.get(RedisKeys.webhookDelivery(tenant, id));
        return json == null ? Optional.empty() : Optional.of(Json.read(json, WebhookDelivery.class));
    }

    public void save(WebhookDelivery d) {
        redis.set(RedisKeys.webhookDelivery(d.tenant(), d.id()), Json.write(d), SetParams.setParams().ex(retention.toSeconds()));
    }

    /** A tenant's deliveries, newest first, created before {@code beforeMillis} (exclusive; null = now). */
    public List<WebhookDelivery> list(String tenant, Long beforeMillis, int limit) {
        String max = beforeMillis == null ? "+inf" : "(" + beforeMillis;
        List<String> ids = redis.zrevrangeByScore(RedisKeys.webhookDeliveries(tenant), max, "-inf", 0, limit);
        List<WebhookDelivery> out = new ArrayList<>();
        for (String id : ids) get(tenant, id).ifPresent(out::add);
        return out;
    }

    /** Makes the delivery due at {@code at}. */
    public void schedule(String tenant, String id, Instant at) {
        redis.zadd(RedisKeys.webhookDue(), at.toEpochMilli(), tenant + "/" + id);
    }

    /** Removes the delivery from the due set (it succeeded or died). */
    public void unschedule(String tenant, String id) {
        redis.zrem(RedisKeys.webhookDue(), tenant + "/" + id);
    }

    /**
     * Claims up to {@code max} due deliveries: each is re-scored to {@code now + lease}, so if this
     * dispatcher dies before finishing, another one takes it when the lease ends.
     *
     * @return {@code tenant/deliveryId} members
     */
    @SuppressWarnings("unchecked")
    public List<String> claimDue(Instant now, Duration lease, int max) {
        Object r = redis.eval(CLAIM, List.of(RedisKeys.webhookDue()),
                List.of(Long.toString(now.toEpochMilli()), Long.toString(lease.toMillis()), Integer.toString(max)));
        return (List<String>) r;
    }

    /** Deliveries waiting in the due set. */
    public long pending() {
        return redis.zcard(RedisKeys.webhookDue());
    }

    public void markDead(String tenant, String id, Instant at) {
        redis.zadd(RedisKeys.webhookDead(tenant), at.toEpochMilli(), id);
    }

    public void clearDead(String tenant, String id) {
        redis.zrem(RedisKeys.webhookDead(tenant), id);
    }

    /** Ids of the tenant's dead-lettered deliveries that died at or after {@code since}. */
    public List<String> deadSince(String tenant, Instant since) {
        return redis.zrangeByScore(RedisKeys.webhookDead(tenant), since.toEpochMilli(), Double.POSITIVE_INFINITY);
    }

    public void disable(String tenant, String url) {
        redis.sadd(RedisKeys.webhookDisabled(tenant), url);
    }

    public boolean isDisabled(String tenant, String url) {
        return redis.sismember(RedisKeys.webhookDisabled(tenant), url);
    }

    public void enable(String tenant, String url) {
        redis.srem(RedisKeys.webhookDisabled(tenant), url);
    }

    /** Re-enables every endpoint of the tenant (its webhook URL changed). */
    public void enableAll(String tenant) {
        redis.del(RedisKeys.webhookDisabled(tenant));
    }

    /** The previous secret while a rotation's overlap lasts. */
    public Optional<String> previousSecret(String tenant) {
        return Optional.ofNullable(redis.get(RedisKeys.webhookPreviousSecret(tenant)));
    }

    public void keepPreviousSecret(String tenant, String secret, Duration overlap) {
        if (secret == null || overlap.isZero()) return;
        redis.set(RedisKeys.webhookPreviousSecret(tenant), secret, SetParams.setParams().ex(Math.max(1, overlap.toSeconds())));
    }
}
