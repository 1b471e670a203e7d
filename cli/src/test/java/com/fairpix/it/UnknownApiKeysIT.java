package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.core.tenant.ApiKeys;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantDirectory;
import com.fairpix.core.tenant.TenantStore;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * Unknown API keys on the real Redis: a key Redis does not know costs a node one read, not one per
 * request; a key that exists afterwards works on every node as soon as its announcement arrives, and
 * a key created on another node works at once.
 */
class UnknownApiKeysIT {

    @Test
    void anUnknownKeyIsReadOnceAndAKeyThatExistsAfterwardsWorksAtOnce() throws Exception {
        FairpixConfig config = Farm.config();
        String url = config.get(Setting.REDIS_URL);
        AtomicInteger keyReads = new AtomicInteger();
        try (UnifiedJedis counting = new UnifiedJedis(URI.create(url)) {
                 @Override
                 public String get(String key) {
                     if (key.startsWith(RedisKeys.apiKey(""))) keyReads.incrementAndGet();
                     return super.get(key);
                 }
             };
             UnifiedJedis redis = Redis.connect(url);
             TenantDirectory node = new TenantDirectory(new TenantStore(counting, Clock.systemUTC()), Redis.subscriber(url), 250).start()) {
            String unknown = ApiKeys.generate();
            for (int i = 0; i < 100; i++) assertThat(node.byApiKey(unknown)).isEmpty();
            assertThat(keyReads.get()).as("Redis reads for 100 requests with one unknown key").isEqualTo(1);
            assertThat(node.unknownKeys()).isEqualTo(1);

            // Another node creates a tenant: its key works here at once.
            TenantStore other = new TenantStore(redis, Clock.systemUTC());
            String tenant = Farm.tenantId("it-unknown-keys");
            String key = other.create(Tenant.withDefaults(tenant)).orElseThrow().apiKey();
            assertThat(node.byApiKey(key)).hasValueSatisfying(t -> assertThat(t.id()).isEqualTo(tenant));

            // The key remembered as unknown comes to exist (what TenantStore.createKey writes, by hand, so
            // that it is asked for before it exists): the announcement drops the negative entry.
            String hash = ApiKeys.hash(unknown);
            redis.set(RedisKeys.apiKey(hash), tenant);
            long version = redis.incr(RedisKeys.tenantVersion());
            redis.zadd(RedisKeys.tenantChanges(), version, "k:" + hash);
            redis.publish(RedisKeys.tenantEvents(), version + " k:" + hash);
            long start = System.nanoTime();
            Webhooks.await(() -> node.byApiKey(unknown).isPresent(), Duration.ofSeconds(2), "the formerly unknown key to work");
            System.out.printf("UnknownApiKeysIT: a formerly unknown key worked %d ms after its announcement%n", (System.nanoTime() - start) / 1_000_000);
            redis.del(RedisKeys.apiKey(hash));
        }
    }
}
