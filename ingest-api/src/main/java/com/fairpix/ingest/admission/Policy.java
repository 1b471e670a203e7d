package com.fairpix.ingest.admission;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The admission policies, each one bit in the Lua script's masks. {@link #id()} is the name used in
 * problem documents ({@code violated-policies}), metrics ({@code reason}) and the
 * {@code admission.shadow} setting.
 */
public enum Policy {
    /** Token bucket: the tenant's guarantee ({@code rate}, {@code burst}), plus borrowing up to its ceiling. */
    RATE(1),
    /** Jobs per day (UTC day, shifted by {@code admission.day-offset-seconds}). */
    DAILY_QUOTA(2),
    /** Jobs QUEUED+RUNNING at once ({@code maxConcurrentJobs}), held as leases with a TTL. */
    CONCURRENCY(4),
    /** The job's cost exceeds every bucket the tenant has: it can never be admitted as it is. */
    COST_EXCEEDS_BURST(8);

    private final int bit;

    Policy(int bit) { this.bit = bit; }

    /** The bit in the script's masks. */
    public int bit() { return bit; }

    /** Lower-case, dash-separated: {@code rate}, {@code daily-quota}, {@code concurrency}, {@code cost-exceeds-burst}. */
    public String id() { return name().toLowerCase(Locale.ROOT).replace('_', '-'); }

    public static Set<Policy> fromMask(int mask) {
        Set<Policy> out = EnumSet.noneOf(Policy.class);
        for (Policy p : values()) if ((mask & p.bit) != 0) out.add(p);
        return out;
    }

    public static int mask(Set<Policy> policies) {
        int m = 0;
        for (Policy p : policies) m |= p.bit;
        return m;
    }

    /** @throws IllegalArgumentException for an unknown id */
    public static Policy byId(String id) {
        for (Policy p : values()) if (p.id().equals(id.trim())) return p;
        throw new IllegalArgumentException("unknown admission policy '" + id + "' (rate, daily-quota, concurrency)");
    }
}
