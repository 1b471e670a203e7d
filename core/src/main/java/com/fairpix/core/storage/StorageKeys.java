package com.fairpix.core.storage;

import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.Instant;

/**
 * S3 key layout. Result keys are deterministic, so a re-processed job overwrites its results
 * instead of duplicating them.
 */
public final class StorageKeys {
    private StorageKeys() {}

    /** {@code tenants/{tenant}/originals/{yyyy}/{MM}/{dd}/{jobId}.{ext}}, dated in UTC. */
    public static String original(String tenant, String jobId, String extension, Instant createdAt) {
        LocalDate d = LocalDate.ofInstant(createdAt, ZoneOffset.UTC);
        return String.format("tenants/%s/originals/%04d/%02d/%02d/%s.%s", tenant, d.getYear(), d.getMonthValue(), d.getDayOfMonth(), jobId, extension);
    }

    /** {@code tenants/{tenant}/results/{jobId}/{variant}.{ext}}. */
    public static String result(String tenant, String jobId, String variant, String extension) {
        return "tenants/" + tenant + "/results/" + jobId + "/" + variant + "." + extension;
    }

    /** The prefix every object of a tenant lives under; workers refuse keys outside it. */
    public static String tenantPrefix(String tenant) {
        return "tenants/" + tenant + "/";
    }

    /**
     * Whether {@code key} names one of {@code tenant}'s own objects: under its prefix, with no
     * {@code ..} that a store or a proxy might resolve to another tenant's. The worker checks every
     * key a job message names with this: the message is the trust boundary.
     */
    public static boolean ownedBy(String tenant, String key) {
        return key != null && key.startsWith(tenantPrefix(tenant)) && !key.contains("..");
    }
}
