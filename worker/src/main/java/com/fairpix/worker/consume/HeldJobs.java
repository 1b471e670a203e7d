package com.fairpix.worker.consume;

import com.fairpix.core.job.JobMessage;
import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.Topics;
import com.fairpix.core.redis.RedisKeys;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/**
 * Jobs of suspended tenants, parked in Redis instead of a worker's memory: a suspended tenant's
 * backlog then neither fills the worker's buffer (which would pause consumption for everyone) nor
 * holds back the offset commits of its partition. Parked jobs stay QUEUED and are produced back to
 * their topic when the tenant is activated; one worker at a time does that, under a lock.
 */
public final class HeldJobs implements JobParking {
    private static final Logger log = LoggerFactory.getLogger(HeldJobs.class);
    private static final int BATCH = 100;

    private final UnifiedJedis redis;
    private final KafkaProducer<String, byte[]> producer;
    private final String owner;

    /** @param owner this worker's id, written into the release lock */
    public HeldJobs(UnifiedJedis redis, KafkaProducer<String, byte[]> producer, String owner) {
        this.redis = redis;
        this.producer = producer;
        this.owner = owner;
    }

    /** Parks one job message; throws when Redis is unreachable (the caller keeps the job). */
    @Override
    public void park(JobMessage message) {
        redis.rpush(RedisKeys.heldJobs(message.tenant()), Json.write(message));
        redis.sadd(RedisKeys.heldTenants(), message.tenant());
    }

    /** Tenants with parked jobs. */
    public java.util.Set<String> tenants() {
        return redis.smembers(RedisKeys.heldTenants());
    }

    /**
     * Produces the tenant's parked jobs back to their topics, in order, then removes them. A crash
     * halfway re-queues some twice, which the worker's idempotent runner absorbs; none is lost.
     *
     * @return how many were re-queued; 0 when another worker holds the lock
     */
    public int release(String tenant) {
        String lock = RedisKeys.heldLock(tenant);
        if (redis.set(lock, owner, SetParams.setParams().nx().ex(60)) == null) return 0;
        int released = 0;
        try {
            while (true) {
                List<String> batch = redis.lrange(RedisKeys.heldJobs(tenant), 0, BATCH - 1);
                if (batch.isEmpty()) break;
                for (String json : batch) {
                    JobMessage m = Json.read(json, JobMessage.class);
                    producer.send(new ProducerRecord<>(Topics.jobs(m.pool()), m.tenant(), json.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                            .get(15, TimeUnit.SECONDS);
                }
                redis.ltrim(RedisKeys.heldJobs(tenant), batch.size(), -1);
                released += batch.size();
                redis.expire(lock, 60);
            }
            if (redis.llen(RedisKeys.heldJobs(tenant)) == 0) redis.srem(RedisKeys.heldTenants(), tenant);
            if (released > 0) log.info("re-queued {} held jobs of tenant {}", released, tenant);
            return released;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return released;
        } catch (Exception e) {
            log.warn("re-queuing held jobs of {} stopped after {}: {}", tenant, released, e.toString());
            return released;
        } finally {
            if (owner.equals(redis.get(lock))) redis.del(lock);
        }
    }
}
