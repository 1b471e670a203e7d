package com.fairpix.core.config;

/**
 * A check of settings whose values another package gives meaning to (the spec limits, the metrics
 * listener, the S3 client), run by every {@link FairpixConfig#load} after its own checks. The
 * implementations are listed in {@code META-INF/services/com.fairpix.core.config.SettingsCheck}
 * and found with {@link java.util.ServiceLoader}: config knows none of those packages, they know it.
 */
public interface SettingsCheck {
    /** @throws IllegalArgumentException naming the setting whose value is refused */
    void check(FairpixConfig config);
}
