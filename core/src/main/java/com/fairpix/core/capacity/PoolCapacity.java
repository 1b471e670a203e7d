package com.fairpix.core.capacity;

import com.fairpix.core.json.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;

/**
 * Each pool's measured service rate, as its workers publish it: a Redis hash
 * {@code fp:{pool:<pool>}:capacity}, one field per worker replica holding
 * {@code {"costPerSecond": r, "threads": n, "at": epochMillis}}. A replica republishes every few
 * seconds; an entry older than {@link #FRESH} is a replica that stopped and is left out (and
 * removed). The pool's capacity is the sum over its fresh replicas, in cost units (admission
 * tokens) per second: the one unit admission, the scheduler and the autoscaler share.
 */
public final class PoolCapacity {
    /** How long a replica's last figure counts. */
    public static final Duration FRESH = Duration.ofSeconds(30);

    private final UnifiedJedis redis;

    public PoolCapacity(UnifiedJedis redis) {
        this.redis = redis;
    }

    /** One replica's figure. @param costPerSecond cost units/s the replica completes while busy */
    public record Replica(String id, double costPerSecond, int threads, long at) {}

    /** A pool's measured capacity: the sum over its fresh replicas (0 and none when no worker published lately). */
    public record Measured(String pool, double costPerSecond, List<Replica> replicas) {
        public int replicaCount() {
            return replicas.size();
        }
    }

    /** Compare-and-delete: a replica that republished since it was read keeps its new figure. */
    private static final String REMOVE_IF_UNCHANGED =
            "if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end return 0";

    private void removeIfUnchanged(String pool, String replica, String value) {
        redis.eval(REMOVE_IF_UNCHANGED, List.of(key(pool)), List.of(replica, value));
    }

    private static String key(String pool) {
        return com.fairpix.core.redis.RedisKeys.capacity(pool);
    }

    /**
     * Publishes one replica's service rate (the hash expires 60 s after the last publication).
     *
     * @param costPerSecond cost units/s, finite and >= 0
     * @throws RuntimeException when Redis does not answer
     */
    public void publish(String pool, String replica, double costPerSecond, int threads, Instant now) {
        if (!(costPerSecond >= 0) || Double.isInfinite(costPerSecond)) throw new IllegalArgumentException("costPerSecond must be finite and >= 0, got " + costPerSecond);
        redis.hset(key(pool), replica, Json.write(new Replica(replica, costPerSecond, threads, now.toEpochMilli())));
        redis.expire(key(pool), 60);
    }

    /** Removes a replica's figure (a worker that stops). */
    public void withdraw(String pool, String replica) {
        redis.hdel(key(pool), replica);
    }

    /**
     * The pool's measured capacity now.
     *
     * @throws RuntimeException when Redis does not answer
     */
    public Measured read(String pool, Instant now) {
        Map<String, String> all = redis.hgetAll(key(pool));
        List<Replica> fresh = new ArrayList<>();
        double sum = 0;
        for (Map.Entry<String, String> e : all.entrySet()) {
            Replica r;
            try {
                r = Json.read(e.getValue(), Replica.class);
            } catch (RuntimeException unreadable) {
                removeIfUnchanged(pool, e.getKey(), e.getValue());
                continue;
            }
            if (now.toEpochMilli() - r.at() > FRESH.toMillis()) {
                removeIfUnchanged(pool, e.getKey(), e.getValue());
                continue;
            }
            fresh.add(r);
            sum += r.costPerSecond();
        }
        fresh.sort(java.util.Comparator.comparing(Replica::id));
        return new Measured(pool, sum, List.copyOf(fresh));
    }
}
