package com.fairpix.ingest.admission;

import com.fairpix.core.error.Rejected;
import com.fairpix.core.tenant.Tenant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The HTTP face of a decision: {@code RateLimit-Policy} and {@code RateLimit} fields as in
 * draft-ietf-httpapi-ratelimit-headers-11 (Structured Field lists of policy items with
 * {@code q} quota, {@code w} window seconds, {@code r} remaining, {@code t} seconds to reset), and
 * the refusal of a rejected decision.
 *
 * <p>The token bucket is advertised as quota {@code q = burst} over window {@code w = burst / rate}
 * seconds (the time an empty bucket takes to fill); costs are in tokens, not requests.
 */
public final class RateLimitFields {
    private RateLimitFields() {}

    /** Header name → value for a decision (successful or rejected). */
    public static Map<String, String> headers(Decision d) {
        Limits l = d.limits();
        Map<String, String> h = new LinkedHashMap<>();
        long burst = l.burstNano() / Limits.NANO;
        long window = Math.max(1, ceilDiv(l.burstNano(), l.rateMilli() * 1_000_000L));
        long day = Math.max(0, l.dailyQuota());
        h.put("RateLimit-Policy", "\"tokens\";q=" + burst + ";w=" + window
                + ", \"daily\";q=" + day + ";w=86400"
                + ", \"concurrency\";q=" + l.maxConcurrent() + ";qu=\"concurrent-requests\"");
        long remaining = Math.max(0, Math.floorDiv(d.remainingNano(), Limits.NANO));
        long tokensReset = Math.max(0, ceilDiv(l.burstNano() - d.remainingNano(), l.rateMilli() * 1_000_000L));
        if (!d.allowed() && d.violated().contains(Policy.RATE)) tokensReset = Math.max(tokensReset, d.retryAfterSeconds());
        long dayMicros = 86_400_000_000L;
        long dayEnd = (Math.floorDiv(d.nowMicros() - l.dayOffsetMicros(), dayMicros) + 1) * dayMicros + l.dayOffsetMicros();
        h.put("RateLimit", "\"tokens\";r=" + remaining + ";t=" + tokensReset
                + ", \"daily\";r=" + Math.max(0, day - d.dailyUsed()) + ";t=" + ceilDiv(dayEnd - d.nowMicros(), 1_000_000L)
                + ", \"concurrency\";r=" + Math.max(0, l.maxConcurrent() - d.leases()));
        return h;
    }

    /**
     * The refusal of a rejected decision: over a limit ({@code rate-limited}) with its retry-after,
     * or unprocessable ({@code cost-exceeds-burst}) when the cost can never fit; either with the
     * decision's RateLimit fields.
     */
    public static Rejected problem(Tenant tenant, Decision d) {
        List<String> policies = new ArrayList<>();
        for (Policy p : d.violated()) policies.add(p.id());
        double cost = d.costNano() / (double) Limits.NANO;
        Rejected problem;
        if (d.neverSatisfiable()) {
            problem = new Rejected(Rejected.Kind.UNPROCESSABLE, "cost-exceeds-burst", "Job too expensive for the tenant's limits",
                    "The job costs " + fmt(cost) + " tokens but tenant '" + tenant.id() + "' can hold at most "
                            + fmt(d.limits().maxCostNano() / (double) Limits.NANO) + " (burst). Send a smaller image or fewer variants, or raise the tenant's burst.");
        } else {
            problem = new Rejected(Rejected.Kind.LIMITED, "rate-limited", "Too many requests",
                    "Tenant '" + tenant.id() + "' is over its " + String.join(", ", policies) + " limit; retry after "
                            + d.retryAfterSeconds() + " s.");
            problem.retryAfter(d.retryAfterSeconds());
        }
        problem.with("violated-policies", policies).with("tenant", tenant.id()).with("cost", cost);
        headers(d).forEach(problem::field);
        return problem;
    }

    private static String fmt(double tokens) {
        return tokens == Math.rint(tokens) ? Long.toString((long) tokens) : String.format(java.util.Locale.ROOT, "%.3f", tokens);
    }

    private static long ceilDiv(long a, long b) { return -Math.floorDiv(-a, b); }
}
