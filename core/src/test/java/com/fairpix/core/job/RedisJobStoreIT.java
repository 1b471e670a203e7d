package com.fairpix.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.redis.Redis;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.core.redis.StackRedis;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The job store contract on the Redis of {@code scripts/stack} (FAIRPIX_REDIS_URL; a Redis
 * Cluster's works too), and what only the Redis store does: report a write Redis refuses, and bound
 * a tenant's index. Records live {@link #RETENTION_SECONDS}, so a run leaves nothing for long.
 */
class RedisJobStoreIT extends JobStoreContract {
    static final long RETENTION_SECONDS = 60;
    static UnifiedJedis redis;
    static JobStore jobs;

    @BeforeAll
    static void connect() {
        redis = Redis.connect(StackRedis.url());
        jobs = JobStore.redis(redis, RETENTION_SECONDS);
    }

    @AfterAll
    static void close() {
        if (redis != null) redis.close();
    }

    @Override
    protected JobStore store() {
        return jobs;
    }

    private static JobRecord record(String tenant, String id, Instant createdAt) {
        return new JobRecord(id, tenant, JobState.QUEUED, "cpu", createdAt, null, null, null,
                new JobRecord.Original("tenants/" + tenant + "/originals/x.jpg", "jpeg", 1, "0", 1, 1),
                JobSpec.parse("{\"variants\":{\"t\":[{\"op\":\"encode\",\"format\":\"jpeg\"}]}}"), Map.of(), null, 0);
    }

    @Test
    void aCreateThatRedisRefusesThrowsInsteadOfPassingForStored() {
        String tenant = "jsit-" + UUID.randomUUID();
        String refused = UUID.randomUUID().toString();
        // Redis answers the record's write with an error (WRONGTYPE here; OOM or READONLY in
        // production): create must not swallow it, or the ingest would queue a job that has no record.
        redis.set(RedisKeys.job(tenant, refused), "not a hash");
        try {
            assertThatThrownBy(() -> jobs.create(record(tenant, refused, Instant.now()))).isInstanceOf(JedisDataException.class)
                    .hasMessageContaining("WRONGTYPE");
        } finally {
            redis.del(RedisKeys.job(tenant, refused));
        }
    }

    /**
     * Issue 33: the tenant's index is bounded: it expires one retention after the last job, and ids
     * older than a retention leave it at the next create.
     */
    @Test
    void theIndexExpiresAndDropsIdsOlderThanARetention() {
        String tenant = "jsit-" + UUID.randomUUID();
        Clock clock = Clock.systemUTC();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = JobIds.next(Clock.offset(clock, Duration.ofMillis(i)));
            ids.add(id);
            jobs.create(record(tenant, id, Instant.now()));
        }
        assertThat(redis.ttl(RedisKeys.jobIndex(tenant))).as("the index expires").isBetween(1L, RETENTION_SECONDS);
        // A job created 2 minutes later (retention 60 s) drops the older ids from the index.
        String later = JobIds.next(Clock.offset(clock, Duration.ofMinutes(2)));
        jobs.create(record(tenant, later, Instant.now().plusSeconds(120)));
        assertThat(redis.zrange(RedisKeys.jobIndex(tenant), 0, -1)).containsExactly(later);
    }
}
