package com.fairpix.core.admission;

import com.fairpix.core.redis.RedisKeys;
import java.time.Instant;
import redis.clients.jedis.UnifiedJedis;

/**
 * A tenant's concurrency leases as admission control keeps them in Redis: one per job admitted and
 * not yet finished, in the sorted set {@link RedisKeys#admissionLeases}, scored by the lease's
 * expiry in epoch microseconds. Ingest's admission script takes them; the worker frees a job's
 * lease when the job ends, ingest when it cancels one, and the autoscaler counts a tenant's.
 */
public final class AdmissionLeases {
    private final UnifiedJedis redis;

    public AdmissionLeases(UnifiedJedis redis) {
        this.redis = redis;
    }

    /**
     * Frees the job's lease at once rather than at its expiry; a lease already gone is no error.
     *
     * @throws redis.clients.jedis.exceptions.JedisException when Redis cannot be reached
     */
    public void release(String tenant, String jobId) {
        redis.zrem(RedisKeys.admissionLeases(tenant), jobId);
    }

    /**
     * The tenant's leases not expired at {@code now}: its jobs queued or running, farm-wide.
     *
     * @throws redis.clients.jedis.exceptions.JedisException when Redis cannot be reached
     */
    public long live(String tenant, Instant now) {
        return redis.zcount(RedisKeys.admissionLeases(tenant), now.toEpochMilli() * 1000.0, Double.POSITIVE_INFINITY);
    }
}
