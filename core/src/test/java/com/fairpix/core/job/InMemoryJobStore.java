package com.fairpix.core.job;

import com.fairpix.core.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * A {@link JobStore} in memory for unit tests, with the Redis store's rules: records as JSON, a
 * compare-and-set transition that reports a re-sent identical write as applied, one tenant's job
 * absent for another, and the event-sent mark beside the record. No retention.
 */
public final class InMemoryJobStore implements JobStore {
    private record Stored(JobState state, String json) {}

    private final Map<String, Stored> records = new ConcurrentHashMap<>();
    private final Map<String, String> owners = new ConcurrentHashMap<>();
    private final Map<String, NavigableSet<String>> index = new ConcurrentHashMap<>();
    private final Map<String, String> eventSent = new ConcurrentHashMap<>();

    private static String key(String tenant, String jobId) {
        return tenant + "/" + jobId;
    }

    @Override
    public void create(JobRecord job) {
        records.put(key(job.tenant(), job.id()), new Stored(job.state(), Json.write(job)));
        index.computeIfAbsent(job.tenant(), t -> new ConcurrentSkipListSet<>()).add(job.id());
        owners.put(job.id(), job.tenant());
    }

    @Override
    public Optional<JobRecord> get(String tenant, String jobId) {
        Stored s = records.get(key(tenant, jobId));
        return s == null ? Optional.empty() : Optional.of(Json.read(s.json(), JobRecord.class));
    }

    @Override
    public Optional<String> tenantOf(String jobId) {
        return Optional.ofNullable(owners.get(jobId));
    }

    @Override
    public synchronized Transition transition(JobRecord next, Set<JobState> from) {
        String key = key(next.tenant(), next.id());
        Stored cur = records.get(key);
        if (cur == null) return new Transition(false, null);
        String json = Json.write(next);
        if (cur.state() == next.state() && cur.json().equals(json)) return new Transition(true, cur.state());
        if (!from.contains(cur.state())) return new Transition(false, cur.state());
        records.put(key, new Stored(next.state(), json));
        return new Transition(true, cur.state());
    }

    @Override
    public void markEventSent(JobRecord job) {
        eventSent.put(key(job.tenant(), job.id()), job.state().name());
    }

    @Override
    public boolean eventSent(JobRecord job) {
        return job.state().name().equals(eventSent.get(key(job.tenant(), job.id())));
    }

    @Override
    public Page list(String tenant, String cursor, int limit, long maxBytes) {
        NavigableSet<String> ids = index.getOrDefault(tenant, new ConcurrentSkipListSet<>()).descendingSet();
        List<JobRecord> jobs = new ArrayList<>();
        String last = null;
        long bytes = 0;
        boolean full = false;
        for (String id : cursor == null ? ids : ids.tailSet(cursor, false)) {
            if (jobs.size() == limit) break;
            JobRecord job = get(tenant, id).orElse(null);
            if (job != null) {
                long size = com.fairpix.core.json.Json.write(job).getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
                if (!jobs.isEmpty() && bytes + size > maxBytes) { full = true; break; }
                bytes += size;
                jobs.add(job);
            }
            last = id;
        }
        return new Page(jobs, full || jobs.size() == limit ? last : null);
    }
}
