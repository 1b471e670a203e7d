package com.fairpix.ingest.enqueue;

import redis.clients.jedis.UnifiedJedis;

/**
 * Where a tenant's Idempotency-Key claims are kept for 24 h: the key (as sent, checked) → what the
 * first request with it stored ({@code jobId fingerprint}).
 */
public interface IdempotencyKeys {
    /** The claims in Redis ({@code RedisKeys.idempotency}, 24 h TTL). */
    static IdempotencyKeys redis(UnifiedJedis redis) {
        return new RedisIdempotencyKeys(redis);
    }

    /**
     * Stores {@code value} under the tenant's key unless something is there.
     *
     * @return true when stored (the request holds the key)
     * @throws redis.clients.jedis.exceptions.JedisException when Redis does not answer
     */
    boolean claim(String tenant, String key, String value);

    /**
     * What is stored under the tenant's key; null when nothing is.
     *
     * @throws redis.clients.jedis.exceptions.JedisException when Redis does not answer
     */
    String get(String tenant, String key);

    /** Removes the tenant's key (it expires anyway). */
    void delete(String tenant, String key);
}
