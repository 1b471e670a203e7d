package com.fairpix.webhooks;

import com.fairpix.core.redis.Redis;
import com.fairpix.core.redis.StackRedis;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The delivery store contract on the Redis of {@code scripts/stack} (FAIRPIX_REDIS_URL; a Redis
 * Cluster's works too). Records and indexes expire one retention (an hour) after a run.
 */
class RedisDeliveryStoreIT extends DeliveryStoreContract {
    static redis.clients.jedis.UnifiedJedis redis;
    static DeliveryStore store;

    @BeforeAll
    static void connect() {
        redis = Redis.connect(StackRedis.url());
        store = DeliveryStore.redis(redis, Duration.ofHours(1));
    }

    @AfterAll
    static void close() {
        if (redis != null) redis.close();
    }

    @Override
    protected DeliveryStore store() {
        return store;
    }
}
