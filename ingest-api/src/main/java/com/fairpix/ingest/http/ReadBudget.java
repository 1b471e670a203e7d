package com.fairpix.ingest.http;

import com.fairpix.core.config.Setting;
import com.fairpix.core.http.ApiProblem;
import java.util.function.LongSupplier;

/**
 * Reads are admitted: a token bucket per tenant on each ingest node for the read routes (a job, a
 * page of jobs, a result), apart from admission's submit bucket. A job or a result costs 1 token, a
 * page {@link #pageCost 1 per 20 jobs asked for}; with less than the cost left the read is answered
 * 429 {@code too-many-reads} with {@code Retry-After} (seconds until the cost is back) and
 * {@code RateLimit-*} fields, before any Redis or S3 call.
 *
 * <p>Why: a read is free for the tenant and not for the farm (a page of 100 jobs was 101 Redis
 * round trips and megabytes of specs); a tenant polling in a loop held a node's cores and Redis
 * as long as it liked. Per node, in memory, like {@link RefusalBudget}: the check needs no network
 * call, and each node protects its own cores; behind a balancer spreading a tenant's reads over N
 * nodes, Redis sees at most N × the rate. A bucket full again is dropped (at the tenant's next
 * read, or by a sweep every 256 reads), so memory follows the tenants reading now.
 */
public final class ReadBudget {
    /** Jobs asked for that cost one token in a page. */
    static final int JOBS_PER_TOKEN = 20;

    private final double perSecond;
    private final double burst;
    private final TenantBuckets buckets;

    /**
     * @param perSecond refill rate, tokens/s ({@code ingest.tenant-reads-per-second})
     * @param burst     capacity, tokens ({@code ingest.tenant-read-burst}); at least 1
     * @param nanos     a monotonic clock, nanoseconds
     */
    public ReadBudget(double perSecond, double burst, LongSupplier nanos) {
        if (!(perSecond > 0) || !(burst >= 1) || !Double.isFinite(perSecond) || !Double.isFinite(burst)) {
            throw new IllegalArgumentException("need perSecond > 0 and burst >= 1, got " + perSecond + ", " + burst);
        }
        this.perSecond = perSecond;
        this.burst = burst;
        this.buckets = new TenantBuckets(perSecond, burst, nanos);
    }

    /** What a page of {@code limit} jobs costs: 1 token per 20 asked for, at least 1. */
    public static double pageCost(int limit) {
        return Math.max(1, Math.ceil((double) limit / JOBS_PER_TOKEN));
    }

    /**
     * Takes {@code cost} tokens from the tenant's bucket.
     *
     * @throws ApiProblem 429 {@code too-many-reads} with {@code Retry-After} when fewer are left
     */
    public void take(String tenant, double cost) {
        buckets.tick();
        double need = Math.min(cost, burst);
        TenantBuckets.Taken t = buckets.tryTake(tenant, need);
        if (t.taken()) return;
        double[] left = {t.left()};
        long retryAfter = Math.max(1, (long) Math.ceil((need - left[0]) / perSecond));
        throw new ApiProblem(429, "too-many-reads", "Too many reads",
                "Tenant '" + tenant + "' reads faster than this node serves one tenant (" + Setting.INGEST_TENANT_READS_PER_SECOND.key() + " "
                        + perSecond + "/s, burst " + Setting.INGEST_TENANT_READ_BURST.key() + " " + burst
                        + "; a page costs 1 per 20 jobs asked for); retry after " + retryAfter + " s, or wait for the job's webhook.")
                .with("limit", burst).header("Retry-After", Long.toString(retryAfter))
                .header("RateLimit-Policy", "\"reads\";q=" + (long) burst + ";w=" + Math.max(1, (long) Math.ceil(burst / perSecond)))
                .header("RateLimit", "\"reads\";r=" + (long) Math.floor(Math.max(0, left[0])) + ";t=" + retryAfter);
    }

    /** Tokens the tenant has now (tests). */
    double tokens(String tenant) {
        return buckets.tokens(tenant);
    }

    /** Buckets held now (tests: full ones are dropped). */
    int buckets() {
        return buckets.size();
    }
}
