package com.fairpix.ingest.enqueue;

import com.fairpix.core.redis.Redis;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.core.redis.StackRedis;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import redis.clients.jedis.UnifiedJedis;

/** The idempotency key contract on the Redis of {@code scripts/stack} (FAIRPIX_REDIS_URL; a Redis Cluster's works too). */
class RedisIdempotencyKeysIT extends IdempotencyKeysContract {
    static UnifiedJedis redis;
    static IdempotencyKeys keys;

    @BeforeAll
    static void connect() {
        redis = Redis.connect(StackRedis.url());
        keys = IdempotencyKeys.redis(redis);
    }

    @AfterAll
    static void close() {
        if (redis != null) redis.close();
    }

    @Override
    protected IdempotencyKeys keys() {
        return keys;
    }

    @Override
    protected Duration timeToLive(String tenant, String key) {
        long seconds = redis.ttl(RedisKeys.idempotency(tenant, key));
        // -2: no such key; -1 would be a key kept for ever, which the contract's bound refuses.
        return seconds == -2 ? null : Duration.ofSeconds(seconds);
    }
}
