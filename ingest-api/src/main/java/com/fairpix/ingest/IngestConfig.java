package com.fairpix.ingest;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.http.AdminTokens;
import com.fairpix.core.http.MetricsAccess;
import com.fairpix.core.job.SpecLimits;
import com.fairpix.core.resilience.BreakerSettings;
import com.fairpix.ingest.admission.AdmissionConfig;
import com.fairpix.webhooks.DispatcherConfig;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The ingest-api's settings, read once at start-up ({@link #from}) and handed down to what it
 * builds. Keys, docs, defaults and each value's bounds are declared in {@link Setting}; the rule
 * across settings, a strong enough admin token, is {@link #validate()}. The overload guard's
 * settings ({@code OverloadConfig}) are read where the guard is built.
 *
 * @param port                     port of the tenant and admin API (0 = any free one)
 * @param adminToken               bearer token of /admin/v1; empty = the admin API is off
 * @param adminTokenMinLength      shortest admin token accepted, characters
 * @param uploadDir                folder for uploads being read
 * @param maxUploadsInFlight       uploads this node reads at once, all tenants
 * @param maxTenantUploadsInFlight uploads of one tenant this node reads at once
 * @param refusalsPerSecond        refused uploads one tenant may cost this node per second, tokens/s
 * @param refusalBurst             tokens a tenant's refusal budget holds
 * @param refusalHold              how long a too-many-refusals 429 is held before it is answered
 * @param capacityHeadroom         multiple of a pool's measured service rate that admission hands out
 * @param guaranteeSharing         how each pool's capacity is shared as guarantees ({@code admission.guarantee-sharing})
 * @param tenantPartitionRate      tokens/s of admitted rate per partition a tenant's jobs spread over; 0 = one partition
 * @param jobRetention             how long job records stay in Redis
 * @param tenantLabels             tenants with their own {@code tenant} label in /metrics
 * @param admission                the {@code admission.*} settings
 * @param spec                     what one job spec may ask for ({@code spec.*})
 * @param metrics                  who may read /metrics, and where ({@code metrics.*})
 * @param breakers                 the dependencies' circuit breakers ({@code overload.breaker.*})
 * @param webhooks                 the {@code webhooks.*} settings (URL checks at registration, secret rotation)
 */
public record IngestConfig(int port, String adminToken, int adminTokenMinLength, Path uploadDir, int maxUploadsInFlight,
                           int maxTenantUploadsInFlight, double refusalsPerSecond, double refusalBurst, Duration refusalHold,
                           double capacityHeadroom, com.fairpix.ingest.admission.FarmShare.Sharing guaranteeSharing, double tenantPartitionRate, Duration jobRetention, int tenantLabels,
                           AdmissionConfig admission, SpecLimits spec, MetricsAccess metrics, BreakerSettings breakers, DispatcherConfig webhooks) {

    /**
     * The {@code ingest.*} settings and the others the ingest-api uses, validated.
     *
     * @throws IllegalArgumentException naming the setting to change, as {@link #validate()} does
     */
    public static IngestConfig from(FairpixConfig c) {
        String uploadDir = c.get(Setting.INGEST_UPLOAD_DIR);
        return new IngestConfig(c.integer(Setting.INGEST_PORT), c.get(Setting.ADMIN_TOKEN), c.integer(Setting.ADMIN_TOKEN_MIN_LENGTH),
                uploadDir.isBlank() ? Path.of(System.getProperty("java.io.tmpdir"), "fairpix-uploads") : Path.of(uploadDir),
                c.integer(Setting.INGEST_MAX_UPLOADS_IN_FLIGHT), c.integer(Setting.INGEST_MAX_TENANT_UPLOADS_IN_FLIGHT),
                c.decimal(Setting.INGEST_TENANT_REFUSALS_PER_SECOND), c.decimal(Setting.INGEST_TENANT_REFUSAL_BURST),
                Duration.ofMillis(c.longValue(Setting.INGEST_REFUSAL_HOLD_MS)), c.decimal(Setting.ADMISSION_CAPACITY_HEADROOM),
                c.choice(Setting.ADMISSION_GUARANTEE_SHARING, com.fairpix.ingest.admission.FarmShare.Sharing.class),
                c.decimal(Setting.TENANT_PARTITION_RATE), Duration.ofSeconds(c.longValue(Setting.JOB_RETENTION_SECONDS)),
                c.integer(Setting.METRICS_TENANT_LABELS), AdmissionConfig.from(c), SpecLimits.from(c), MetricsAccess.from(c), BreakerSettings.from(c),
                DispatcherConfig.from(c)).validate();
    }

    /**
     * Refuses a guessable admin token (shorter than {@code adminTokenMinLength}, a known placeholder,
     * too few distinct characters) before anything is started.
     *
     * @return this
     * @throws IllegalArgumentException naming {@code FAIRPIX_ADMIN_TOKEN}
     */
    public IngestConfig validate() {
        AdminTokens.check(adminToken, adminTokenMinLength);
        return this;
    }
}
