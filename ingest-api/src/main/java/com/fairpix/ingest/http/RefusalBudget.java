package com.fairpix.ingest.http;

import com.fairpix.core.config.Setting;
import com.fairpix.core.http.ApiProblem;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * What one ingest node spends on a tenant's refused uploads: a token bucket per tenant (rate
 * {@code perSecond} tokens/s, capacity {@code burst} tokens). Every upload this node refuses as the
 * client's fault (400, 413, 415, 422) costs the tenant 1 token plus 1 per MiB of body read before the
 * refusal, and any other answer but a 2xx costs the MiB read (an admission 429 after a 25 MiB body
 * cost the node the same reading); while its bucket holds less than one token, the tenant's next uploads get 429
 * {@code too-many-refusals} before any of their body is read.
 *
 * <p>Why: a refusal is free for the tenant (no job, no admission tokens spent) but not for the node,
 * which reads up to {@code maxUploadBytes} of a body, parses specs and builds the answer. Admission's
 * limits count accepted jobs only, so without this a tenant looping over bad requests holds the
 * node's cores for as long as it likes. The same idea as a per-client request rate limiter that
 * counts every request whatever its outcome (Stripe, "Scaling your API with rate limiters", 2017)
 * and as fail2ban's ban on repeated failures, here weighted by bytes read, since a 25 MiB body costs
 * the node about as much as hundreds of small bad requests.
 *
 * <p>A throttled request is held for a moment before its 429 is written ({@link #holdBeforeAnswering}).
 *
 * <p>Per node, in memory: each node protects its own cores (what the budget guards), and the check
 * needs no network call. A bucket is dropped once it is full again (at the tenant's next check, or
 * by a sweep every {@value TenantBuckets#SWEEP_EVERY} checks), so memory grows with the tenants refused in the
 * last {@code burst / perSecond} seconds or so, not with all tenants.
 */
public final class RefusalBudget {
    /** Body bytes that cost one more token. */
    static final long BYTES_PER_TOKEN = 1024 * 1024;

    private final double perSecond;
    private final double burst;
    private final TenantBuckets buckets;
    /** Most of one tenant's throttled requests held at once, and of all tenants'. */
    static final int HELD_PER_TENANT = 4;
    static final int HELD_IN_ALL = 256;
    private final java.time.Duration hold;
    private final Sleeper sleeper;
    private final java.util.concurrent.Semaphore heldInAll = new java.util.concurrent.Semaphore(HELD_IN_ALL);
    private final ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicInteger> held = new ConcurrentHashMap<>();

    /** Waits; {@code Thread::sleep} outside tests. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(java.time.Duration d) throws InterruptedException;
    }

    /**
     * @param perSecond refill rate, tokens/s ({@code ingest.tenant-refusals-per-second})
     * @param burst     capacity, tokens ({@code ingest.tenant-refusal-burst}); at least 1
     * @param hold      how long a throttled request is held before its 429 ({@code ingest.refusal-hold-ms}); zero: not held
     * @param nanos     a monotonic clock, nanoseconds ({@link com.fairpix.core.time.SystemTime#nanos} outside tests)
     * @param sleeper   how a held request waits ({@code Thread::sleep} outside tests)
     * @throws IllegalArgumentException if {@code perSecond <= 0}, {@code burst < 1} or {@code hold} is negative
     */
    public RefusalBudget(double perSecond, double burst, java.time.Duration hold, LongSupplier nanos, Sleeper sleeper) {
        if (!(perSecond > 0) || !(burst >= 1) || !Double.isFinite(perSecond) || !Double.isFinite(burst)) throw new IllegalArgumentException("need perSecond > 0 and burst >= 1, got " + perSecond + ", " + burst);
        if (hold.isNegative()) throw new IllegalArgumentException("hold must be >= 0, got " + hold);
        this.perSecond = perSecond;
        this.burst = burst;
        this.hold = hold;
        this.buckets = new TenantBuckets(perSecond, burst, nanos);
        this.sleeper = sleeper;
    }

    /**
     * Whether an answer is a refusal for the client's fault (400, 413, 415, 422), which costs a token
     * of its own. Not: a limit's answer (429), a conflict of the client's own duplicates (409), the
     * farm's (5xx), and 422 {@code original-refused} (the object store refusing what the farm named).
     */
    public static boolean clientFault(int status, String slug) {
        return (status == 400 || status == 413 || status == 415 || status == 422) && !"original-refused".equals(slug);
    }

    /**
     * What a request that was not accepted costs its tenant, tokens: 1 per MiB of body this node read
     * (any answer but a 2xx: a 429 of admission, a 409, a 503 after the body was read cost the node
     * the same reading), plus 1 when the refusal was the client's fault.
     *
     * @param bytesRead body bytes read before the answer
     */
    public static double cost(int status, String slug, long bytesRead) {
        return (clientFault(status, slug) ? 1 : 0) + (double) Math.max(0, bytesRead) / BYTES_PER_TOKEN;
    }

    /**
     * Before reading an upload: passes while the tenant has at least one token.
     *
     * @throws ApiProblem 429 {@code too-many-refusals} with {@code Retry-After} (seconds until one
     *                    token is back) and {@code Connection: close} (the body is not read)
     */
    public void check(String tenant) {
        buckets.tick();
        double[] left = {buckets.tokensDroppingFull(tenant)};
        if (left[0] >= 1) return;
        long retryAfter = Math.max(1, (long) Math.ceil((1 - left[0]) / perSecond));
        throw new ApiProblem(429, "too-many-refusals", "Too many refused uploads",
                "Tenant '" + tenant + "' has had too many uploads refused on this node (each costs 1 + 1 per MiB read; "
                        + Setting.INGEST_TENANT_REFUSALS_PER_SECOND.key() + " " + perSecond + "/s, burst " + Setting.INGEST_TENANT_REFUSAL_BURST.key()
                        + " " + burst + "); fix the requests, then retry after " + retryAfter + " s.")
                .with("limit", burst).header("Retry-After", Long.toString(retryAfter)).header("Connection", "close");
    }

    /**
     * After an answer other than a 2xx: takes {@code cost} tokens ({@link #cost}) from the tenant's
     * bucket. It may go below zero: a large refusal is paid back before the next upload is read.
     * Not atomic with {@link #check}: a tenant's uploads in flight together all passed the check on
     * its last token, so the debt can reach its upload slots × its {@code maxUploadBytes} in MiB
     * (8 × 25 by default), repaid at the refill rate.
     *
     * @param cost tokens, >= 0
     */
    public void charge(String tenant, double cost) {
        if (!(cost > 0) || Double.isInfinite(cost)) return;
        buckets.charge(tenant, cost);
    }

    /**
     * Holds the calling request for {@code hold} before its 429 is written: a tarpit. A client that
     * retries at once, ignoring {@code Retry-After}, would otherwise loop on cheap 429s as fast as
     * it can connect (each a TCP connection, since the body is not read: ~4,000 in 10 s from two
     * connections in HostileSustainedIT), and the loop costs the node CPU like the refusals did. A held
     * request costs a virtual thread and a socket, no CPU; at most {@link #HELD_PER_TENANT} of a
     * tenant's and {@link #HELD_IN_ALL} in all are held at once (beyond, the 429 comes at once), so
     * holding never takes what other tenants need: it uses none of the node's upload slots.
     */
    public void holdBeforeAnswering(String tenant) {
        if (hold.isZero()) return;
        int[] mine = new int[1];
        held.compute(tenant, (k, v) -> {
            java.util.concurrent.atomic.AtomicInteger c = v == null ? new java.util.concurrent.atomic.AtomicInteger() : v;
            mine[0] = c.incrementAndGet();
            return c;
        });
        boolean holding = false;
        try {
            if (mine[0] > HELD_PER_TENANT || !heldInAll.tryAcquire()) return;
            holding = true;
            sleeper.sleep(hold);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (holding) heldInAll.release();
            held.computeIfPresent(tenant, (k, c) -> c.decrementAndGet() <= 0 ? null : c);
        }
    }

    /** Requests being held now: of {@code tenant} (tests). */
    int held(String tenant) {
        java.util.concurrent.atomic.AtomicInteger c = held.get(tenant);
        return c == null ? 0 : c.get();
    }

    /** Tokens the tenant has now (tests, diagnostics). */
    public double tokens(String tenant) {
        return buckets.tokens(tenant);
    }

    /** Drops the buckets that are full again: a tenant refused once and not seen since leaves nothing behind. */
    void sweep() {
        buckets.sweep();
    }

    /** Tenants with a bucket below full (memory: tests). */
    int tenantsTracked() {
        return buckets.size();
    }
}
