package com.fairpix.ingest.enqueue;

import java.time.Duration;
import redis.clients.jedis.UnifiedJedis;

/**
 * Where a tenant's Idempotency-Key claims are kept for 24 h: the key (as sent, checked) → what the
 * first request with it stored ({@code jobId fingerprint}).
 */
public interface IdempotencyKeys {
    /** How long a claim is kept after it was made, a day (docs/hostile-tenants.md). */
    Duration TTL = Duration.ofHours(24);

    /** The claims in Redis ({@code RedisKeys.idempotency}, expiring after {@link #TTL}). */
    static IdempotencyKeys redis(UnifiedJedis redis) {
        return new RedisIdempotencyKeys(redis);
    }

    /**
     * Stores {@code value} under the tenant's key for {@link #TTL} unless something is there (a
     * refused claim leaves the stored value and its expiry as they were).
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
