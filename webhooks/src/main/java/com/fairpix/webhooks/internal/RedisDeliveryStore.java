package com.fairpix.webhooks.internal;

import com.fairpix.core.json.Json;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.webhooks.DeliveryStore;
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
public final class RedisDeliveryStore implements DeliveryStore {
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

    @Override
    public boolean create(WebhookDelivery d) {
        String ok = redis.set(RedisKeys.webhookDelivery(d.tenant(), d.id()), Json.write(d), SetParams.setParams().nx().ex(retention.toSeconds()));
        if (ok == null) return false;
        long ms = d.createdAt().toEpochMilli();
        redis.zadd(RedisKeys.webhookDeliveries(d.tenant()), ms, d.id());
        redis.zremrangeByScore(RedisKeys.webhookDeliveries(d.tenant()), Double.NEGATIVE_INFINITY, ms - retention.toMillis());
        schedule(d.tenant(), d.id(), d.nextAttemptAt());
        return true;
    }

    @Override
    public Optional<WebhookDelivery> get(String tenant, String id) {
        String json = redis.get(RedisKeys.webhookDelivery(tenant, id));
        return json == null ? Optional.empty() : Optional.of(Json.read(json, WebhookDelivery.class));
    }

    @Override
    public void save(WebhookDelivery d) {
        redis.set(RedisKeys.webhookDelivery(d.tenant(), d.id()), Json.write(d), SetParams.setParams().ex(retention.toSeconds()));
    }

    @Override
    public List<WebhookDelivery> list(String tenant, Long beforeMillis, int limit) {
        String max = beforeMillis == null ? "+inf" : "(" + beforeMillis;
        List<String> ids = redis.zrevrangeByScore(RedisKeys.webhookDeliveries(tenant), max, "-inf", 0, limit);
        List<WebhookDelivery> out = new ArrayList<>();
        for (String id : ids) get(tenant, id).ifPresent(out::add);
        return out;
    }

    @Override
    public void schedule(String tenant, String id, Instant at) {
        redis.zadd(RedisKeys.webhookDue(), at.toEpochMilli(), tenant + "/" + id);
    }

    @Override
    public void unschedule(String tenant, String id) {
        redis.zrem(RedisKeys.webhookDue(), tenant + "/" + id);
    }

    @Override
    @SuppressWarnings("unchecked")
    public List<String> claimDue(Instant now, Duration lease, int max) {
        Object r = redis.eval(CLAIM, List.of(RedisKeys.webhookDue()),
                List.of(Long.toString(now.toEpochMilli()), Long.toString(lease.toMillis()), Integer.toString(max)));
        return (List<String>) r;
    }

    @Override
    public long pending() {
        return redis.zcard(RedisKeys.webhookDue());
    }

    @Override
    public void markDead(String tenant, String id, Instant at) {
        redis.zadd(RedisKeys.webhookDead(tenant), at.toEpochMilli(), id);
    }

    @Override
    public void clearDead(String tenant, String id) {
        redis.zrem(RedisKeys.webhookDead(tenant), id);
    }

    @Override
    public List<String> deadSince(String tenant, Instant since) {
        return redis.zrangeByScore(RedisKeys.webhookDead(tenant), since.toEpochMilli(), Double.POSITIVE_INFINITY);
    }

    @Override
    public void disable(String tenant, String url) {
        redis.sadd(RedisKeys.webhookDisabled(tenant), url);
    }

    @Override
    public boolean isDisabled(String tenant, String url) {
        return redis.sismember(RedisKeys.webhookDisabled(tenant), url);
    }

    @Override
    public void enable(String tenant, String url) {
        redis.srem(RedisKeys.webhookDisabled(tenant), url);
    }

    @Override
    public void enableAll(String tenant) {
        redis.del(RedisKeys.webhookDisabled(tenant));
    }

    @Override
    public Optional<String> previousSecret(String tenant) {
        return Optional.ofNullable(redis.get(RedisKeys.webhookPreviousSecret(tenant)));
    }

    @Override
    public void keepPreviousSecret(String tenant, String secret, Duration overlap) {
        if (secret == null || overlap.isZero()) return;
        redis.set(RedisKeys.webhookPreviousSecret(tenant), secret, SetParams.setParams().ex(Math.max(1, overlap.toSeconds())));
    }
}
