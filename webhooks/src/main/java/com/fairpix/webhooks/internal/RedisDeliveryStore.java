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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.params.SetParams;

/**
 * Webhook deliveries in Redis: one JSON value per delivery, a per-tenant index, a per-tenant
 * dead-letter index, and the due sets that make retries durable: a retry is a score in the tenant's
 * {@link RedisKeys#webhookTenantDue}, so it survives any dispatcher restart, and
 * {@link RedisKeys#webhookDueTenants()} ranks the tenants with due work so that claims serve them in
 * turn. The due keys share one hash tag, so each script below touches one Redis Cluster slot.
 */
public final class RedisDeliveryStore implements DeliveryStore {
    private static final Logger log = LoggerFactory.getLogger(RedisDeliveryStore.class);

    /**
     * Makes a delivery due, unless the member is new and the tenant's due set already holds the cap.
     * KEYS: tenants, tenant due; ARGV: due ms, id, tenant, cap. Returns 1 when due, 0 when over the cap.
     */
    private static final String ENQUEUE = """
            if not redis.call('ZSCORE', KEYS[2], ARGV[2]) and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 0 end
            redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
            local cur = redis.call('ZSCORE', KEYS[1], ARGV[3])
            if not cur or tonumber(ARGV[1]) < tonumber(cur) then redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3]) end
            return 1
            """;
    /** KEYS: tenants, tenant due; ARGV: id, tenant. A tenant with nothing left due leaves the tenants' index. */
    private static final String DEQUEUE = """
            redis.call('ZREM', KEYS[2], ARGV[1])
            if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('ZREM', KEYS[1], ARGV[2]) end
            return 1
            """;
    /**
     * Claims a tenant's due members by pushing their score to a lease, then ranks the tenant by its
     * next due time, but no earlier than now: tenants still waiting come first at the next claim.
     * KEYS: tenants, tenant due; ARGV: now ms, lease ms, max, tenant.
     */
    private static final String CLAIM = """
            local now = tonumber(ARGV[1])
            local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
            for _, m in ipairs(due) do redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), m) end
            local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
            if #first == 0 then
              redis.call('ZREM', KEYS[1], ARGV[4])
            else
              local next = tonumber(first[2])
              if next < now then next = now end
              redis.call('ZADD', KEYS[1], next, ARGV[4])
            end
            return due
            """;
    /** KEYS: tenants. The due deliveries of every tenant in the index. */
    private static final String PENDING = """
            local n = 0
            for _, t in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do n = n + redis.call('ZCARD', ARGV[1] .. t) end
            return n
            """;
    /** KEYS: the tenant's dead set; ARGV: at ms, id, floor ms, retention s. */
    private static final String MARK_DEAD = """
            redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
            redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
            redis.call('EXPIRE', KEYS[1], ARGV[4])
            return 1
            """;
    /**
     * KEYS: the tenant's disabled URLs; ARGV: url, cap, retention s. Past the cap a random other URL
     * leaves (it is tried again, and disabled again if it still answers 410); the set expires one
     * retention after the last URL disabled.
     */
    private static final String DISABLE = """
            redis.call('SADD', KEYS[1], ARGV[1])
            while redis.call('SCARD', KEYS[1]) > tonumber(ARGV[2]) do
              local m = redis.call('SRANDMEMBER', KEYS[1])
              if m ~= ARGV[1] then redis.call('SREM', KEYS[1], m) end
            end
            redis.call('EXPIRE', KEYS[1], ARGV[3])
            return 1
            """;
    /** Disabled URLs kept per tenant (each up to 2 KB): 100, about 200 KB at most. */
    static final int MAX_DISABLED = 100;
    /** No cap: {@code tonumber} of this is larger than any due set. */
    private static final String NO_CAP = "9007199254740991";

    private final UnifiedJedis redis;
    private final Duration retention;

    /** @param retention how long a delivery record is kept after its last change */
    public RedisDeliveryStore(UnifiedJedis redis, Duration retention) {
        this.redis = redis;
        this.retention = retention;
    }

    @Override
    public Created create(WebhookDelivery d, long maxPending) {
        String ok = redis.set(RedisKeys.webhookDelivery(d.tenant(), d.id()), Json.write(d), SetParams.setParams().nx().ex(retention.toSeconds()));
        if (ok == null) return Created.DUPLICATE;
        long ms = d.createdAt().toEpochMilli();
        redis.zadd(RedisKeys.webhookDeliveries(d.tenant()), ms, d.id());
        redis.zremrangeByScore(RedisKeys.webhookDeliveries(d.tenant()), Double.NEGATIVE_INFINITY, ms - retention.toMillis());
        // The index goes one retention after the tenant's last delivery (a deleted tenant's too).
        redis.expire(RedisKeys.webhookDeliveries(d.tenant()), retention.toSeconds());
        return enqueue(d.tenant(), d.id(), d.nextAttemptAt(), Long.toString(maxPending)) ? Created.QUEUED : Created.OVER_CAP;
    }

    private boolean enqueue(String tenant, String id, Instant at, String cap) {
        Object r = redis.eval(ENQUEUE, List.of(RedisKeys.webhookDueTenants(), RedisKeys.webhookTenantDue(tenant)),
                List.of(Long.toString(at.toEpochMilli()), id, tenant, cap));
        return r instanceof Long n && n == 1L;
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
        enqueue(tenant, id, at, NO_CAP);
    }

    @Override
    public void unschedule(String tenant, String id) {
        redis.eval(DEQUEUE, List.of(RedisKeys.webhookDueTenants(), RedisKeys.webhookTenantDue(tenant)), List.of(id, tenant));
    }

    @Override
    public List<String> dueTenants(Instant now, int max) {
        return redis.zrangeByScore(RedisKeys.webhookDueTenants(), Double.NEGATIVE_INFINITY, now.toEpochMilli(), 0, max);
    }

    @Override
    @SuppressWarnings("unchecked")
    public List<String> claimDue(String tenant, Instant now, Duration lease, int max) {
        Object r = redis.eval(CLAIM, List.of(RedisKeys.webhookDueTenants(), RedisKeys.webhookTenantDue(tenant)),
                List.of(Long.toString(now.toEpochMilli()), Long.toString(lease.toMillis()), Integer.toString(max), tenant));
        return (List<String>) r;
    }

    @Override
    public long pending() {
        // The script reads keys it builds from the index: all carry the {wh} tag, so they are in KEYS[1]'s slot.
        Object r = redis.eval(PENDING, List.of(RedisKeys.webhookDueTenants()), List.of(RedisKeys.webhookTenantDue("")));
        return r instanceof Long n ? n : 0;
    }

    @Override
    public long pending(String tenant) {
        return redis.zcard(RedisKeys.webhookTenantDue(tenant));
    }

    /**
     * Moves what the farm-wide due set of older versions ({@link RedisKeys#webhookDueLegacy()}) still
     * holds into the per-tenant due sets, keeping each due time; a dispatcher does this at start.
     *
     * @return the deliveries moved
     */
    public int moveLegacyDue() {
        String legacy = RedisKeys.webhookDueLegacy();
        int moved = 0;
        for (Tuple t : redis.zrangeWithScores(legacy, 0, -1)) {
            String member = t.getElement();
            int slash = member.indexOf('/');
            if (slash > 0) {
                schedule(member.substring(0, slash), member.substring(slash + 1), Instant.ofEpochMilli((long) t.getScore()));
                moved++;
            }
            redis.zrem(legacy, member);
        }
        if (moved > 0) log.info("moved {} due webhook deliveries from {} into the per-tenant due sets", moved, legacy);
        return moved;
    }

    @Override
    public void markDead(String tenant, String id, Instant at) {
        // Bounded like the index: dead letters older than a retention go (their records have), and
        // the set expires one retention after the last.
        redis.eval(MARK_DEAD, List.of(RedisKeys.webhookDead(tenant)),
                List.of(Long.toString(at.toEpochMilli()), id, Long.toString(at.toEpochMilli() - retention.toMillis()), Long.toString(retention.toSeconds())));
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
        redis.eval(DISABLE, List.of(RedisKeys.webhookDisabled(tenant)),
                List.of(url, Integer.toString(MAX_DISABLED), Long.toString(retention.toSeconds())));
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
