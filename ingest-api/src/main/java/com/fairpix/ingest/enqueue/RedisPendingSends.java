package com.fairpix.ingest.enqueue;

import com.fairpix.core.redis.RedisKeys;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/** {@link PendingSends#redis}: the notes in {@link RedisKeys#PENDING_SEND_SHARDS} sorted sets. */
final class RedisPendingSends implements PendingSends {
    private final UnifiedJedis redis;

    RedisPendingSends(UnifiedJedis redis) {
        this.redis = redis;
    }

    /** The shard of a job: the same for its add and its remove, whichever node does them. */
    static String key(String jobId) {
        return RedisKeys.pendingSends(Math.floorMod(jobId.hashCode(), RedisKeys.PENDING_SEND_SHARDS));
    }

    @Override
    public void add(String tenant, String jobId, Instant since) {
        redis.zadd(key(jobId), since.toEpochMilli(), tenant + "/" + jobId);
    }

    @Override
    public void remove(String tenant, String jobId) {
        redis.zrem(key(jobId), tenant + "/" + jobId);
    }

    /** The oldest {@code limit} of each shard, merged: the oldest {@code limit} of all. */
    @Override
    public List<Pending> olderThan(Instant cutoff, int limit) {
        double max = cutoff.toEpochMilli() - 1;
        moveUnsharded(max, limit);
        List<Pending> out = new ArrayList<>();
        for (int shard = 0; shard < RedisKeys.PENDING_SEND_SHARDS; shard++) {
            for (Tuple t : redis.zrangeByScoreWithScores(RedisKeys.pendingSends(shard), Double.NEGATIVE_INFINITY, max, 0, limit)) {
                Pending p = parse(t);
                if (p != null) out.add(p);
            }
        }
        out.sort(Comparator.comparing(Pending::since));
        return out.size() > limit ? List.copyOf(out.subList(0, limit)) : out;
    }

    /**
     * Moves notes a node of the release before the shards left in the one farm-wide set into their
     * shards (added there first, so a failure between the two leaves a note twice, never none).
     */
    private void moveUnsharded(double max, int limit) {
        String old = RedisKeys.pendingSendsUnsharded();
        for (Tuple t : redis.zrangeByScoreWithScores(old, Double.NEGATIVE_INFINITY, max, 0, limit)) {
            Pending p = parse(t);
            if (p != null) redis.zadd(key(p.jobId()), t.getScore(), t.getElement());
            redis.zrem(old, t.getElement());
        }
    }

    private static Pending parse(Tuple t) {
        String member = t.getElement();
        int slash = member.indexOf('/');
        if (slash < 0) return null;
        return new Pending(member.substring(0, slash), member.substring(slash + 1), Instant.ofEpochMilli((long) t.getScore()));
    }
}
