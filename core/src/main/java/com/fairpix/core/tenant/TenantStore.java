package com.fairpix.core.tenant;

import com.fairpix.core.json.Json;
import com.fairpix.core.redis.RedisKeys;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/** Tenants and their API-key hashes in Redis. */
public final class TenantStore {
    private final UnifiedJedis redis;

    public TenantStore(UnifiedJedis redis) {
        this.redis = redis;
    }

    /**
     * Stores a new tenant.
     *
     * @return false when a tenant with this id already exists
     */
    public boolean create(Tenant tenant) {
        String ok = redis.set(RedisKeys.tenant(tenant.id()), Json.write(tenant), SetParams.setParams().nx());
        if (ok == null) return false;
        redis.sadd(RedisKeys.tenants(), tenant.id());
        return true;
    }

    public void put(Tenant tenant) {
        redis.set(RedisKeys.tenant(tenant.id()), Json.write(tenant));
    }

    public Optional<Tenant> get(String id) {
        String json = redis.get(RedisKeys.tenant(id));
        return json == null ? Optional.empty() : Optional.of(Json.read(json, Tenant.class));
    }

    /** Creates a new API key for the tenant; the key itself is returned once and never stored. */
    public String createKey(String tenantId) {
        String key = ApiKeys.generate();
        String hash = ApiKeys.hash(key);
        redis.set(RedisKeys.apiKey(hash), tenantId);
        redis.sadd(RedisKeys.tenantKeys(tenantId), hash);
        return key;
    }

    /** The tenant id owning this key, if the key is well-formed and known. */
    public Optional<String> tenantForKey(String key) {
        if (!ApiKeys.looksValid(key)) return Optional.empty();
        return Optional.ofNullable(redis.get(RedisKeys.apiKey(ApiKeys.hash(key))));
    }
}
