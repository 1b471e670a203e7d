package com.fairpix.core.tenant;

import com.fairpix.core.json.Json;
import com.fairpix.core.redis.RedisKeys;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/**
 * Tenants and their API keys in Redis, and the announcement of every change.
 *
 * <p>A change is written to the tenant's own key (compare-and-set on its version, so two admins
 * cannot lose each other's update), then announced: the farm-wide change counter is incremented,
 * the change is logged in a sorted set by that counter, and published on a channel. Nodes apply
 * the message at once and heal missed messages from the log ({@link TenantDirectory}).
 */
public final class TenantStore {
    /** Keep this many changes in the log; a node further behind reloads everything it caches. */
    static final long CHANGE_LOG_SIZE = 100_000;

    private static final String COMPARE_AND_SET = """
            local cur = redis.call('GET', KEYS[1])
            if not cur then return -1 end
            if cjson.decode(cur)['version'] ~= tonumber(ARGV[1]) then return 0 end
            redis.call('SET', KEYS[1], ARGV[2])
            return 1
            """;

    private final UnifiedJedis redis;
    private final Clock clock;

    /** @param clock stamps the creation time of API keys */
    public TenantStore(UnifiedJedis redis, Clock clock) {
        this.redis = redis;
        this.clock = clock;
    }

    /** A key as listed: its id (not secret), creation time. */
    public record KeyInfo(String keyId, Instant createdAt) {}

    private record StoredKey(String hash, Instant createdAt) {}

    /** A new tenant and its first API key (shown once). */
    public record Created(Tenant tenant, String apiKey) {}

    /**
     * Creates a tenant: stored CREATING, given its first API key, then made ACTIVE.
     *
     * @return empty when a tenant with this id already exists
     */
    public Optional<Created> create(Tenant requested) {
        Tenant creating = new Tenant(requested.id(), TenantState.CREATING, requested.weight(), requested.rate(), requested.burst(),
                requested.dailyQuota(), requested.maxConcurrentJobs(), requested.maxUploadBytes(), requested.maxPixels(),
                requested.allowedFormats(), requested.webhookUrl(), requested.webhookSecret(), requested.pool(), 1);
        if (redis.set(RedisKeys.tenant(creating.id()), Json.write(creating), SetParams.setParams().nx()) == null) return Optional.empty();
        redis.zadd(RedisKeys.tenants(), 0, creating.id());
        String key = createKey(creating.id());
        Tenant active = update(creating.id(), t -> t.withState(TenantState.ACTIVE)).orElseThrow();
        return Optional.of(new Created(active, key));
    }

    public Optional<Tenant> get(String id) {
        String json = redis.get(RedisKeys.tenant(id));
        return json == null ? Optional.empty() : Optional.of(Json.read(json, Tenant.class));
    }

    /**
     * Applies {@code change} to the stored tenant, retrying if another writer got in between, and
     * announces the change. The change must increment the version.
     *
     * @return the new tenant; empty when there is no such tenant
     */
    public Optional<Tenant> update(String id, UnaryOperator<Tenant> change) {
        for (int attempt = 0; attempt < 16; attempt++) {
            Optional<Tenant> current = get(id);
            if (current.isEmpty()) return Optional.empty();
            Tenant next = change.apply(current.get());
            if (next.version() <= current.get().version()) throw new IllegalStateException("a tenant change must increment its version");
            Object ok = redis.eval(COMPARE_AND_SET, List.of(RedisKeys.tenant(id)), List.of(Long.toString(current.get().version()), Json.write(next)));
            if (Long.valueOf(1).equals(ok)) {
                announce("t:" + id);
                return Optional.of(next);
            }
            if (Long.valueOf(-1).equals(ok)) return Optional.empty();
        }
        throw new IllegalStateException("tenant " + id + " changes too often to update");
    }

    /**
     * A page of tenants in id order.
     *
     * @param cursor the last id of the previous page, or null
     */
    public Page list(String cursor, int limit) {
        String min = cursor == null ? "-" : "(" + cursor;
        List<String> ids = redis.zrangeByLex(RedisKeys.tenants(), min, "+", 0, limit);
        List<Tenant> tenants = new ArrayList<>(ids.size());
        for (String id : ids) get(id).ifPresent(tenants::add);
        return new Page(tenants, ids.size() == limit ? ids.get(ids.size() - 1) : null);
    }

    /** @param nextCursor null at the end */
    public record Page(List<Tenant> tenants, String nextCursor) {}

    /** Creates a further API key for the tenant; the key itself is returned once and never stored. */
    public String createKey(String tenantId) {
        String key = ApiKeys.generate();
        String hash = ApiKeys.hash(key);
        redis.hset(RedisKeys.tenantKeys(tenantId), ApiKeys.keyId(hash), Json.write(new StoredKey(hash, clock.instant())));
        redis.set(RedisKeys.apiKey(hash), tenantId);
        announce("k:" + hash);
        return key;
    }

    public List<KeyInfo> keys(String tenantId) {
        List<KeyInfo> out = new ArrayList<>();
        Map<String, String> all = new LinkedHashMap<>(redis.hgetAll(RedisKeys.tenantKeys(tenantId)));
        all.forEach((id, json) -> out.add(new KeyInfo(id, Json.read(json, StoredKey.class).createdAt())));
        out.sort(java.util.Comparator.comparing(KeyInfo::createdAt));
        return out;
    }

    /** Revokes a key by its id; false when the tenant has no such key. */
    public boolean revokeKey(String tenantId, String keyId) {
        String json = redis.hget(RedisKeys.tenantKeys(tenantId), keyId);
        if (json == null) return false;
        String hash = Json.read(json, StoredKey.class).hash();
        redis.del(RedisKeys.apiKey(hash));
        redis.hdel(RedisKeys.tenantKeys(tenantId), keyId);
        announce("k:" + hash);
        return true;
    }

    /** Revokes every key of the tenant (on delete). */
    public void revokeAllKeys(String tenantId) {
        for (KeyInfo k : keys(tenantId)) revokeKey(tenantId, k.keyId());
    }

    /** The tenant id owning the key of this hash ({@link ApiKeys#hash}), if known. Reads Redis. */
    public Optional<String> tenantForKeyHash(String hash) {
        return Optional.ofNullable(redis.get(RedisKeys.apiKey(hash)));
    }

    /** The farm-wide change counter (0 before any change). */
    public long version() {
        String v = redis.get(RedisKeys.tenantVersion());
        return v == null ? 0 : Long.parseLong(v);
    }

    /**
     * Changes after {@code version}, oldest first: members {@code t:<tenant>} or {@code k:<keyHash>}.
     *
     * @return null when the log no longer reaches back to {@code version} (reload everything)
     */
    public List<String> changesSince(long version) {
        String floor = redis.get(RedisKeys.tenantChangesFloor());
        if (floor != null && version < Long.parseLong(floor)) return null;
        return redis.zrangeByScore(RedisKeys.tenantChanges(), "(" + version, "+inf");
    }

    /** Drops the oldest changes beyond {@link #CHANGE_LOG_SIZE}, remembering the newest dropped version. */
    private void trimChangeLog() {
        long size = redis.zcard(RedisKeys.tenantChanges());
        if (size <= CHANGE_LOG_SIZE) return;
        var cut = redis.zrangeWithScores(RedisKeys.tenantChanges(), size - CHANGE_LOG_SIZE - 1, size - CHANGE_LOG_SIZE - 1);
        if (!cut.isEmpty()) redis.set(RedisKeys.tenantChangesFloor(), Long.toString((long) cut.get(0).getScore()));
        redis.zremrangeByRank(RedisKeys.tenantChanges(), 0, size - CHANGE_LOG_SIZE - 1);
    }

    private void announce(String member) {
        long version = redis.incr(RedisKeys.tenantVersion());
        redis.zadd(RedisKeys.tenantChanges(), version, member);
        if (version % 1000 == 0) trimChangeLog();
        redis.publish(RedisKeys.tenantEvents(), version + " " + member);
    }
}
