package com.fairpix.ingest.enqueue;

import com.fairpix.core.redis.RedisKeys;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/** {@link IdempotencyKeys} in Redis: one string per claim, {@code SET NX} with a {@link #TTL} expiry. */
final class RedisIdempotencyKeys implements IdempotencyKeys {
    private final UnifiedJedis redis;

    RedisIdempotencyKeys(UnifiedJedis redis) {
        this.redis = redis;
    }

    @Override
    public boolean claim(String tenant, String key, String value) {
        return redis.set(RedisKeys.idempotency(tenant, key), value, SetParams.setParams().nx().ex(TTL.toSeconds())) != null;
    }

    @Override
    public String get(String tenant, String key) {
        return redis.get(RedisKeys.idempotency(tenant, key));
    }

    @Override
    public void delete(String tenant, String key) {
        redis.del(RedisKeys.idempotency(tenant, key));
    }
}
