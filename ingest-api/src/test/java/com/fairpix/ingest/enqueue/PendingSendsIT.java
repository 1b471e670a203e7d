package com.fairpix.ingest.enqueue;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.redis.Redis;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.core.redis.StackRedis;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * {@link PendingSends#redis} on the real Redis of {@code scripts/stack} (FAIRPIX_REDIS_URL; a
 * Redis Cluster's URL works too). Its notes are dated in 1970, older than any other user's of the
 * same Redis, so the sweep's reads below see only this test's (a cutoff of {@link #T0} + 1 h).
 */
class PendingSendsIT {
    static final Instant T0 = Instant.ofEpochMilli(1_000);
    static final Instant CUTOFF = T0.plusSeconds(3600);
    static UnifiedJedis redis;
    static PendingSends pending;
    final String a = "pst-a-" + UUID.randomUUID();
    final String b = "pst-b-" + UUID.randomUUID();
    final List<String[]> added = new ArrayList<>();

    @BeforeAll
    static void connect() {
        String url = StackRedis.url();
        redis = Redis.connect(url);
        pending = PendingSends.redis(redis);
    }

    @AfterAll
    static void close() {
        if (redis != null) redis.close();
    }

    @AfterEach
    void forget() {
        for (String[] n : added) pending.remove(n[0], n[1]);
        for (String[] n : added) redis.zrem(RedisKeys.pendingSendsUnsharded(), n[0] + "/" + n[1]);
    }

    private String add(String tenant, long secondsAfterT0) {
        String job = UUID.randomUUID().toString();
        pending.add(tenant, job, T0.plusSeconds(secondsAfterT0));
        added.add(new String[] {tenant, job});
        return job;
    }

    @Test
    void oldestFirstAcrossShardsAndTenantsUpToTheLimitAndOnlyBeforeTheCutoff() {
        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < 40; i++) jobs.add(add(i % 2 == 0 ? a : b, i));
        add(a, 3600); // at the cutoff: not older than it
        Set<String> shards = new HashSet<>();
        for (String j : jobs) shards.add(RedisPendingSends.key(j));
        assertThat(shards).as("40 jobs spread over the shards").hasSizeGreaterThan(8);

        List<PendingSends.Pending> all = pending.olderThan(CUTOFF, 500);
        assertThat(all).extracting(PendingSends.Pending::jobId).containsExactlyElementsOf(jobs);
        assertThat(all.get(1)).isEqualTo(new PendingSends.Pending(b, jobs.get(1), T0.plusSeconds(1)));
        assertThat(all).filteredOn(p -> p.tenant().equals(a)).hasSize(20);

        assertThat(pending.olderThan(CUTOFF, 7)).extracting(PendingSends.Pending::jobId).containsExactlyElementsOf(jobs.subList(0, 7));
        assertThat(pending.olderThan(T0.plusSeconds(10), 500)).extracting(PendingSends.Pending::jobId)
                .as("before T0 + 10 s").containsExactlyElementsOf(jobs.subList(0, 10));
    }

    @Test
    void aRemovedSendIsNotFoundAgainAndTheOtherTenantsIsKept() {
        String first = add(a, 0);
        String other = add(b, 1);
        String third = add(a, 2);
        pending.remove(a, first);
        pending.remove(b, third); // another tenant's member of that job: not this note
        assertThat(pending.olderThan(CUTOFF, 500)).extracting(PendingSends.Pending::jobId).containsExactly(other, third);
        pending.remove(b, other);
        pending.remove(a, third);
        assertThat(pending.olderThan(CUTOFF, 500)).isEmpty();
    }

    @Test
    void notesInTheUnshardedSetOfTheEarlierReleaseAreMovedIntoTheirShards() {
        String job = UUID.randomUUID().toString();
        added.add(new String[] {a, job});
        redis.zadd(RedisKeys.pendingSendsUnsharded(), T0.toEpochMilli(), a + "/" + job);
        String newer = add(b, 5);

        assertThat(pending.olderThan(CUTOFF, 500)).extracting(PendingSends.Pending::jobId).containsExactly(job, newer);
        assertThat(redis.zscore(RedisKeys.pendingSendsUnsharded(), a + "/" + job)).isNull();
        pending.remove(a, job);
        assertThat(pending.olderThan(CUTOFF, 500)).extracting(PendingSends.Pending::jobId).containsExactly(newer);
    }

    @Test
    void theShardsLieOnSixteenSlotsOverEveryMasterOfAThreeMasterCluster() {
        Set<Integer> slots = new HashSet<>();
        Set<Integer> thirds = new HashSet<>();
        for (int s = 0; s < RedisKeys.PENDING_SEND_SHARDS; s++) {
            int slot = JedisClusterCRC16.getSlot(RedisKeys.pendingSends(s));
            slots.add(slot);
            thirds.add(slot * 3 / 16384);
        }
        assertThat(slots).hasSize(RedisKeys.PENDING_SEND_SHARDS);
        assertThat(thirds).containsExactlyInAnyOrder(0, 1, 2);
    }
}
