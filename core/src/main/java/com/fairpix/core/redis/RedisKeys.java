package com.fairpix.core.redis;

/**
 * Redis key layout. Per-tenant keys carry the tenant in a hash tag ({@code fp:{t42}:...}) so one
 * tenant's keys share a Redis Cluster slot.
 */
public final class RedisKeys {
    private RedisKeys() {}

    public static String tenant(String tenant) { return "fp:{" + tenant + "}:tenant"; }

    /** Set of all tenant ids (farm-wide; touched only by admin operations). */
    public static String tenants() { return "fp:tenants"; }

    /** SHA-256 of an API key → tenant id. */
    public static String apiKey(String keyHash) { return "fp:apikey:" + keyHash; }

    /** Set of the key hashes of one tenant (for listing and revoking). */
    public static String tenantKeys(String tenant) { return "fp:{" + tenant + "}:keys"; }

    public static String job(String tenant, String jobId) { return "fp:{" + tenant + "}:job:" + jobId; }

    /** Sorted set of a tenant's job ids, scored by creation time in epoch milliseconds. */
    public static String jobIndex(String tenant) { return "fp:{" + tenant + "}:jobs"; }

    /** Job id → tenant id, for admin look-ups by id alone. */
    public static String jobOwner(String jobId) { return "fp:jobowner:" + jobId; }

    public static String idempotency(String tenant, String key) { return "fp:{" + tenant + "}:idem:" + key; }

    /**
     * Admission state of one tenant: a hash with the guaranteed (private) token bucket, the
     * ceiling bucket and the daily-quota counter, in nanotokens and microseconds. Expires once
     * every bucket in it would be full again anyway.
     */
    public static String admission(String tenant) { return "fp:{" + tenant + "}:adm"; }

    /** Sorted set of a tenant's concurrency leases: job id scored by the lease's expiry, epoch microseconds. */
    public static String admissionLeases(String tenant) { return "fp:{" + tenant + "}:leases"; }

    /**
     * The farm-wide borrowing pool (one hash; its own slot in Redis Cluster). Touched by every
     * admission when borrowing is on; see docs/admission.md for the Cluster caveat.
     */
    public static String admissionPool() { return "fp:{pool}:adm"; }
}
