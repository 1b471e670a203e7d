package com.fairpix.webhooks;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import java.time.Duration;
import java.util.List;

/**
 * The webhook settings: the {@code webhooks.*} settings (keys, docs, defaults and the bounds of
 * each value are declared in {@link Setting}) and {@code job.retention-seconds}, how long a delivery
 * is kept. The retry schedule and the allow list are parsed here, and {@link Check} parses them on
 * every {@link FairpixConfig#load}, so every process with this module refuses a bad one at load.
 *
 * @param schedule            delays before each retry ({@code webhooks.retry-schedule})
 * @param endpointConcurrency attempts in flight at once per tenant endpoint, per dispatcher (≥ 1)
 * @param tenantConcurrency   attempts in flight at once for one tenant over all its endpoints, per dispatcher (≥ 1)
 * @param maxInFlight         attempts in flight at once in one dispatcher, also its connection pool's size (≥ 1)
 * @param maxPendingPerTenant deliveries one tenant may have in its due set; a new one past it is dead-lettered unattempted (≥ 1)
 * @param pollInterval        how often the due set is checked (200 ms; not a setting)
 * @param breakerOpen         how long an endpoint's open circuit breaker holds deliveries back (30 s; not a setting)
 * @param secretOverlap       how long the previous secret still signs after a rotation (≥ 0)
 * @param allowHttp           accept {@code http://} webhook URLs (local use only)
 * @param allowList           address ranges exempt from the SSRF deny list
 * @param retention           how long a delivery record is kept after its last change
 */
public record DispatcherConfig(RetrySchedule schedule, int endpointConcurrency, int tenantConcurrency, int maxInFlight,
                               int maxPendingPerTenant, Duration pollInterval, Duration breakerOpen, Duration secretOverlap, boolean allowHttp,
                               List<UrlGuard.Cidr> allowList, Duration retention) {

    /** @throws IllegalArgumentException naming the member to change (the settings' values are checked by their constraints) */
    public DispatcherConfig {
        allowList = List.copyOf(allowList);
        if (maxPendingPerTenant < 1) throw new IllegalArgumentException("maxPendingPerTenant must be >= 1");
        if (!pollInterval.isPositive()) throw new IllegalArgumentException("pollInterval must be > 0");
        if (!breakerOpen.isPositive()) throw new IllegalArgumentException("breakerOpen must be > 0");
    }

    /**
     * The settings as configured.
     *
     * @throws IllegalArgumentException naming the setting whose retry schedule or allow list does not parse
     */
    public static DispatcherConfig from(FairpixConfig config) {
        RetrySchedule schedule;
        try {
            schedule = RetrySchedule.parse(config.get(Setting.WEBHOOKS_RETRY_SCHEDULE));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(Setting.WEBHOOKS_RETRY_SCHEDULE.env() + ": " + e.getMessage(), e);
        }
        List<UrlGuard.Cidr> allowList;
        try {
            allowList = UrlGuard.parseAllowList(config.get(Setting.WEBHOOKS_ALLOW_LIST));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(Setting.WEBHOOKS_ALLOW_LIST.env() + ": " + e.getMessage(), e);
        }
        return new DispatcherConfig(schedule, config.integer(Setting.WEBHOOKS_ENDPOINT_CONCURRENCY), config.integer(Setting.WEBHOOKS_TENANT_CONCURRENCY),
                config.integer(Setting.WEBHOOKS_MAX_IN_FLIGHT), config.integer(Setting.WEBHOOKS_MAX_PENDING_PER_TENANT), Duration.ofMillis(200), Duration.ofSeconds(30),
                Duration.ofSeconds(config.longValue(Setting.WEBHOOKS_SECRET_OVERLAP_SECONDS)), config.bool(Setting.WEBHOOKS_ALLOW_HTTP), allowList,
                Duration.ofSeconds(config.longValue(Setting.JOB_RETENTION_SECONDS)));
    }

    /** Refuses a {@code webhooks.*} value only this module can parse when any config loads. */
    public static final class Check implements com.fairpix.core.config.SettingsCheck {
        @Override
        public void check(FairpixConfig config) {
            from(config);
        }
    }

    /** The SSRF guard these settings describe, resolving names with {@code resolver}. */
    public UrlGuard guard(UrlGuard.Resolver resolver) {
        return new UrlGuard(allowHttp, allowList, resolver);
    }
}
