package com.fairpix.ingest.http;

import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.JobState;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A job as the tenant API shows it: storage keys hidden, each result with its download link, and
 * what its image work cost ({@code usage}: CPU ms, peak resident bytes; null until measured).
 */
public record JobView(
        String id,
        JobState state,
        String pool,
        Instant createdAt,
        Instant queuedAt,
        Instant startedAt,
        Instant finishedAt,
        Original original,
        JobSpec spec,
        Map<String, Result> results,
        JobRecord.Error error,
        int attempts,
        JobRecord.Usage usage,
        String self) {

    /** @param size bytes; width/height pixels */
    public record Original(String format, long size, String sha256, int width, int height) {}

    /** @param size bytes; width/height pixels; url relative to the API base */
    public record Result(String format, String contentType, int width, int height, long size, String url) {}

    public static JobView of(JobRecord job) {
        String self = "/v1/jobs/" + job.id();
        Map<String, Result> results = new LinkedHashMap<>();
        if (job.results() != null) {
            job.results().forEach((name, r) -> results.put(name,
                    new Result(r.format(), r.contentType(), r.width(), r.height(), r.size(), self + "/results/" + name)));
        }
        JobRecord.Original o = job.original();
        return new JobView(job.id(), job.state(), job.pool(), job.createdAt(), job.queuedAt(), job.startedAt(), job.finishedAt(),
                new Original(o.format(), o.size(), o.sha256(), o.width(), o.height()), job.spec(), results, job.error(), job.attempts(), job.usage(), self);
    }
}
