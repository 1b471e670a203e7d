package com.fairpix.core.job;

import com.fairpix.core.json.Json;
import com.fairpix.core.redis.RedisKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/**
 * {@link JobStore} in Redis: a hash {@code fp:{tenant}:job:{id}} with the current {@code state} and the
 * record's {@code json}; a per-tenant index sorted by id (UUIDv7, so by creation time).
 *
 * <p>Transitions are compare-and-set in one Lua script, so two workers racing on one job (a
 * redelivery) cannot move a DONE job back to RUNNING.
 */
final class RedisJobStore implements JobStore {
    /**
     * KEYS[1] the record, KEYS[2] the tenant's index; ARGV: state, json, retention s, job id, the
     * index's floor (the smallest id of a job created one retention ago). The index is bounded:
     * ids below the floor go (their records have expired, or will have after one more retention at
     * most), and the whole index expires one retention after the tenant's last job.
     */
    private static final String CREATE = """
            redis.call('HSET', KEYS[1], 'state', ARGV[1], 'json', ARGV[2])
            redis.call('EXPIRE', KEYS[1], ARGV[3])
            redis.call('ZADD', KEYS[2], 0, ARGV[4])
            redis.call('ZREMRANGEBYLEX', KEYS[2], '-', '(' .. ARGV[5])
            redis.call('EXPIRE', KEYS[2], ARGV[3])
            return 1
            """;

    /**
     * One page in one round trip. KEYS[1] the tenant's index; ARGV: the upper bound ({@code +} or
     * {@code (cursor}), the page's most jobs, its most bytes of record JSON, the prefix of a record's
     * key (the tenant's slot: every key read shares the index's hash tag). Returns the next cursor
     * ({@code ""} at the end) and the records' JSON. A page holds at least one record; an id whose
     * record expired leaves the index on the way.
     */
    private static final String LIST = """
            local ids = redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[1], '-', 'LIMIT', 0, tonumber(ARGV[2]))
            local out = {''}
            local bytes = 0
            local last = nil
            local full = false
            for _, id in ipairs(ids) do
              local json = redis.call('HGET', ARGV[4] .. id, 'json')
              if json then
                if #out > 1 and bytes + #json > tonumber(ARGV[3]) then full = true; break end
                bytes = bytes + #json
                out[#out + 1] = json
              else
                redis.call('ZREM', KEYS[1], id)
              end
              last = id
            end
            if last and (full or #ids == tonumber(ARGV[2])) then out[1] = last end
            return out
            """;

    /**
     * KEYS[1] the record; ARGV: allowed states (comma-separated), next state, next json, retention s.
     * A re-sent call whose write is already there (a cluster client re-sends after a read timeout)
     * reports applied, so the worker does not skip the job's event; another record into the same
     * state is still refused.
     */
    private static final String TRANSITION = """
            local cur = redis.call('HGET', KEYS[1], 'state')
            if not cur then return {0, ''} end
            if cur == ARGV[2] and redis.call('HGET', KEYS[1], 'json') == ARGV[3] then return {1, cur} end
            for s in string.gmatch(ARGV[1], '[^,]+') do
              if s == cur then
                redis.call('HSET', KEYS[1], 'state', ARGV[2], 'json', ARGV[3])
                redis.call('EXPIRE', KEYS[1], ARGV[4])
                return {1, cur}
              end
            end
            return {0, cur}
            """;

    private final UnifiedJedis redis;
    private final long retentionSeconds;

    /** @param retentionSeconds how long a record lives after its last change, seconds */
    RedisJobStore(UnifiedJedis redis, long retentionSeconds) {
        this.redis = redis;
        this.retentionSeconds = retentionSeconds;
    }

    /**
     * One script on the tenant's slot for the record and its index entry, then its owner
     * (a key of its own slot on a Redis Cluster): two round trips of plain, retried commands. (A
     * pipeline did it in one, but Jedis 7.4.1's cluster pipeline does not follow a failover: it
     * kept sending to a dead master, and threw NPEs and IllegalStateExceptions from sync()
     * meanwhile, seen in RedisClusterFailoverIT.) Both steps are idempotent, so a retried call
     * cannot write twice.
     */
    @Override
    public void create(JobRecord job) {
        redis.eval(CREATE, List.of(RedisKeys.job(job.tenant(), job.id()), RedisKeys.jobIndex(job.tenant())),
                List.of(job.state().name(), Json.write(job), Long.toString(retentionSeconds), job.id(),
                        JobIds.floor(job.createdAt().toEpochMilli() - retentionSeconds * 1000)));
        redis.set(RedisKeys.jobOwner(job.id()), job.tenant(), SetParams.setParams().ex(retentionSeconds));
    }

    @Override
    public Optional<JobRecord> get(String tenant, String jobId) {
        String json = redis.hget(RedisKeys.job(tenant, jobId), "json");
        return json == null ? Optional.empty() : Optional.of(Json.read(json, JobRecord.class));
    }

    @Override
    public Optional<String> tenantOf(String jobId) {
        return Optional.ofNullable(redis.get(RedisKeys.jobOwner(jobId)));
    }

    @Override
    public Transition transition(JobRecord next, Set<JobState> from) {
        String allowed = from.stream().map(Enum::name).collect(Collectors.joining(","));
        Object out = redis.eval(TRANSITION, List.of(RedisKeys.job(next.tenant(), next.id())),
                List.of(allowed, next.state().name(), Json.write(next), Long.toString(retentionSeconds)));
        List<?> result = (List<?>) out;
        boolean applied = ((Long) result.get(0)) == 1L;
        String found = String.valueOf(result.get(1));
        return new Transition(applied, found.isEmpty() ? null : JobState.valueOf(found));
    }

    @Override
    public void markEventSent(JobRecord job) {
        redis.hset(RedisKeys.job(job.tenant(), job.id()), "eventSent", job.state().name());
    }

    @Override
    public boolean eventSent(JobRecord job) {
        return job.state().name().equals(redis.hget(RedisKeys.job(job.tenant(), job.id()), "eventSent"));
    }

    @Override
    public Page list(String tenant, String cursor, int limit, long maxBytes) {
        String max = cursor == null ? "+" : "(" + cursor;
        List<?> out = (List<?>) redis.eval(LIST, List.of(RedisKeys.jobIndex(tenant)),
                List.of(max, Integer.toString(limit), Long.toString(maxBytes), RedisKeys.job(tenant, "")));
        List<JobRecord> jobs = new ArrayList<>(out.size() - 1);
        for (Object json : out.subList(1, out.size())) jobs.add(Json.read(String.valueOf(json), JobRecord.class));
        String next = String.valueOf(out.get(0));
        return new Page(jobs, next.isEmpty() ? null : next);
    }
}
