package com.fairpix.ingest.enqueue;

import com.fairpix.core.redis.RedisKeys;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@link SubmissionCounts} in Redis: one INCR on the pool's per-second key and the job's cost
 * (tokens) added to its cost key (both expire after 120 s), which the autoscaler sums into ingest
 * QPS and mean cost per job across all ingest nodes, and the tenant's last submission time in the
 * pool's active-tenant set (so the autoscaler's per-tenant view lists tenants with recent work, not
 * every tenant whose partition has lag, and ingest's {@code FarmCapacity} sums the guarantees of
 * the tenants using the pool).
 */
final class RedisSubmissionCounts implements SubmissionCounts {
    private static final Logger log = LoggerFactory.getLogger(RedisSubmissionCounts.class);
    /** KEYS: job count, cost sum (both per second, 120 s TTL), active tenants (members an hour old leave); ARGV: cost, epoch second, tenant. */
    private static final String COUNT_SUBMISSION = """
            redis.call('INCR', KEYS[1])
            redis.call('EXPIRE', KEYS[1], 120)
            redis.call('INCRBYFLOAT', KEYS[2], ARGV[1])
            redis.call('EXPIRE', KEYS[2], 120)
            redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3])
            redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[2] - 3600)
            return 1
            """;

    private final UnifiedJedis redis;

    RedisSubmissionCounts(UnifiedJedis redis) {
        this.redis = redis;
    }

    @Override
    public void count(String pool, String tenant, Instant at, double cost) {
        String key = RedisKeys.submissionsPerSecond(pool, at.getEpochSecond());
        String costKey = RedisKeys.submittedCostPerSecond(pool, at.getEpochSecond());
        // One script on the pool's slot (the keys share its hash tag): one round trip, and a plain
        // command the cluster client follows through a failover. (Not MULTI: Jedis'
        // RedisClusterClient.multi() throws UnsupportedOperationException; not a pipeline: its
        // cluster pipeline keeps sending to a dead master.)
        try {
            redis.eval(COUNT_SUBMISSION, List.of(key, costKey, RedisKeys.activeTenants(pool)),
                    List.of(Double.toString(cost), Long.toString(at.getEpochSecond()), tenant));
        } catch (RuntimeException e) {
            log.debug("QPS counter not updated: {}", e.toString());
        }
    }
}
