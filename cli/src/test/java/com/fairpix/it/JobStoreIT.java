package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.config.Setting;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.JobState;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.redis.RedisKeys;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/** The job store against the real Redis: its pipelined create reports what Redis refuses. */
class JobStoreIT {
    private static JobRecord record(String tenant, String id) {
        return new JobRecord(id, tenant, JobState.QUEUED, "cpu", Instant.now(), null, null, null,
                new JobRecord.Original("tenants/" + tenant + "/originals/x.jpg", "jpeg", 1, "0", 1, 1),
                JobSpec.parse("{\"variants\":{\"t\":[{\"op\":\"encode\",\"format\":\"jpeg\"}]}}"), Map.of(), null, 0);
    }

    @Test
    void aCreateThatRedisRefusesThrowsInsteadOfPassingForStored() {
        try (UnifiedJedis redis = Redis.connect(Farm.config().get(Setting.REDIS_URL))) {
            JobStore jobs = JobStore.redis(redis, 60);
            String tenant = Farm.tenantId("it-store");
            String ok = UUID.randomUUID().toString(), refused = UUID.randomUUID().toString();

            jobs.create(record(tenant, ok));
            assertThat(jobs.get(tenant, ok)).hasValueSatisfying(j -> assertThat(j.state()).isEqualTo(JobState.QUEUED));

            // Redis answers the record's HSET with an error (WRONGTYPE here; OOM or READONLY in
            // production): a pipeline keeps it as a reply, and create must not swallow it, or the
            // ingest would queue a job that has no record.
            redis.set(RedisKeys.job(tenant, refused), "not a hash");
            assertThatThrownBy(() -> jobs.create(record(tenant, refused))).isInstanceOf(JedisDataException.class).hasMessageContaining("WRONGTYPE");
            // One key per DEL: the owner keys live outside the tenant's slot on a cluster.
            for (String key : List.of(RedisKeys.job(tenant, ok), RedisKeys.job(tenant, refused), RedisKeys.jobIndex(tenant), RedisKeys.jobOwner(ok), RedisKeys.jobOwner(refused))) {
                redis.del(key);
            }
        }
    }

    /**
     * Issue 33: a page is read in one script, ends before the record that would pass its bytes, and
     * the tenant's index is bounded: it expires one retention after the last job, and ids older than
     * a retention leave it at the next create.
     */
    @Test
    void aPageIsBoundedInBytesAndTheIndexExpires() {
        try (UnifiedJedis redis = Redis.connect(Farm.config().get(Setting.REDIS_URL))) {
            JobStore jobs = JobStore.redis(redis, 60);
            String tenant = Farm.tenantId("it-store-page");
            java.time.Clock clock = java.time.Clock.systemUTC();
            List<String> ids = new java.util.ArrayList<>();
            for (int i = 0; i < 5; i++) {
                String id = com.fairpix.core.job.JobIds.next(java.time.Clock.offset(clock, java.time.Duration.ofMillis(i)));
                ids.add(id);
                jobs.create(record(tenant, id));
            }
            long one = redis.hget(RedisKeys.job(tenant, ids.get(0)), "json").length();
            JobStore.Page page = jobs.list(tenant, null, 100, 2 * one + one / 2);
            assertThat(page.jobs()).extracting(JobRecord::id).containsExactly(ids.get(4), ids.get(3));
            assertThat(page.nextCursor()).isEqualTo(ids.get(3));
            assertThat(jobs.list(tenant, page.nextCursor(), 100, Long.MAX_VALUE).jobs()).extracting(JobRecord::id)
                    .containsExactly(ids.get(2), ids.get(1), ids.get(0));
            assertThat(redis.ttl(RedisKeys.jobIndex(tenant))).as("the index expires").isBetween(1L, 60L);
            // A job created 2 minutes later (retention 60 s) drops the older ids from the index.
            JobRecord later = record(tenant, com.fairpix.core.job.JobIds.next(java.time.Clock.offset(clock, java.time.Duration.ofMinutes(2))));
            later = new JobRecord(later.id(), tenant, later.state(), later.pool(), Instant.now().plusSeconds(120), null, null, null,
                    later.original(), later.spec(), Map.of(), null, 0);
            jobs.create(later);
            assertThat(redis.zrange(RedisKeys.jobIndex(tenant), 0, -1)).containsExactly(later.id());
            redis.del(RedisKeys.jobIndex(tenant));
            for (String id : ids) redis.del(RedisKeys.job(tenant, id));
            redis.del(RedisKeys.job(tenant, later.id()));
        }
    }

    /**
     * A transition Redis already applied is applied again when re-sent with the same record (a
     * cluster client re-sends a command after a read timeout): the worker must not read "not
     * applied" and skip the job's completion event. Another record into the same state is still refused.
     */
    @Test
    void aTransitionReSentWithTheSameRecordIsAppliedOnceAndReportedApplied() {
        try (UnifiedJedis redis = Redis.connect(Farm.config().get(Setting.REDIS_URL))) {
            JobStore jobs = JobStore.redis(redis, 60);
            String tenant = Farm.tenantId("it-store-idem");
            String id = UUID.randomUUID().toString();
            JobRecord queued = record(tenant, id);
            jobs.create(queued);
            Instant t = Instant.parse("2026-12-01T12:00:00Z");
            JobRecord running = queued.running(t, t, 1);
            assertThat(jobs.transition(running, java.util.EnumSet.of(JobState.QUEUED)).applied()).isTrue();
            JobRecord done = running.done(t.plusSeconds(1), Map.of());
            assertThat(jobs.transition(done, java.util.EnumSet.of(JobState.RUNNING)).applied()).isTrue();
            JobStore.Transition again = jobs.transition(done, java.util.EnumSet.of(JobState.RUNNING));
            assertThat(again.applied()).as("the same write, re-sent").isTrue();
            JobStore.Transition other = jobs.transition(running.done(t.plusSeconds(2), Map.of()), java.util.EnumSet.of(JobState.RUNNING));
            assertThat(other.applied()).as("another attempt's DONE").isFalse();
            assertThat(other.found()).isEqualTo(JobState.DONE);
            for (String key : List.of(RedisKeys.job(tenant, id), RedisKeys.jobIndex(tenant), RedisKeys.jobOwner(id))) redis.del(key);
        }
    }
}
