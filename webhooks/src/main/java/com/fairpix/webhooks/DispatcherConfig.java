package com.fairpix.webhooks;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import java.time.Duration;
import java.util.List;

/**
 * The webhook settings, read and checked once: the {@code webhooks.*} settings (keys, docs and
 * defaults are declared in {@link Setting}) and {@code job.retention-seconds}, how long a delivery
 * is kept. Every instance is valid: the constructor refuses a bad value, naming the setting to
 * change, so the ingest-api and the dispatcher refuse to start with one.
 *
 * @param schedule            delays before each retry ({@code webhooks.retry-schedule})
 * @param endpointConcurrency attempts in flight at once per tenant endpoint, per dispatcher (≥ 1)
 * @param tenantConcurrency   attempts in flight at once for one tenant over all its endpoints, per dispatcher (≥ 1)
 * @param maxInFlight         attempts in flight at once in one dispatcher, also its connection pool's size (≥ 1)
 * @param pollInterval        how often the due set is checked (200 ms; not a setting)
 * @param breakerOpen         how long an endpoint's open circuit breaker holds deliveries back (30 s; not a setting)
 * @param secretOverlap       how long the previous secret still signs after a rotation (≥ 0)
 * @param allowHttp           accept {@code http://} webhook URLs (local use only)
 * @param allowList           address ranges exempt from the SSRF deny list
 * @param retention           how long a delivery record is kept after its last change
 */
public record DispatcherConfig(RetrySchedule schedule, int endpointConcurrency, int tenantConcurrency, int maxInFlight,
                               Duration pollInterval, Duration breakerOpen, Duration secretOverlap, boolean allowHttp,
                               List<UrlGuard.Cidr> allowList, Duration retention) {

    /** @throws IllegalArgumentException naming the setting (or, for those that are not settings, the member) to change */
    public DispatcherConfig {
        allowList = List.copyOf(allowList);
        if (endpointConcurrency < 1) throw new IllegalArgumentException(Setting.WEBHOOKS_ENDPOINT_CONCURRENCY.env() + " must be >= 1");
        if (tenantConcurrency < 1) throw new IllegalArgumentException(Setting.WEBHOOKS_TENANT_CONCURRENCY.env() + " must be >= 1");
        if (maxInFlight < 1) throw new IllegalArgumentException(Setting.WEBHOOKS_MAX_IN_FLIGHT.env() + " must be >= 1");
        if (secretOverlap.isNegative()) throw new IllegalArgumentException(Setting.WEBHOOKS_SECRET_OVERLAP_SECONDS.env() + " must be >= 0");
        if (!retention.isPositive()) throw new IllegalArgumentException(Setting.JOB_RETENTION_SECONDS.env() + " must be > 0");
        if (!pollInterval.isPositive()) throw new IllegalArgumentException("pollInterval must be > 0");
        if (!breakerOpen.isPositive()) throw new IllegalArgumentException("breakerOpen must be > 0");
    }

    /**
     * The settings as configured.
     *
     * @throws IllegalArgumentException naming the setting that does not parse or is out of range
     */
    public static DispatcherConfig from(FairpixConfig config) {
        String allowHttp = config.get(Setting.WEBHOOKS_ALLOW_HTTP).trim();
        if (!allowHttp.equals("true") && !allowHttp.equals("false")) {
            throw new IllegalArgumentException(Setting.WEBHOOKS_ALLOW_HTTP.env() + " must be true or false, got " + allowHttp);
        }
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
                config.integer(Setting.WEBHOOKS_MAX_IN_FLIGHT), Duration.ofMillis(200), Duration.ofSeconds(30),
                Duration.ofSeconds(config.longValue(Setting.WEBHOOKS_SECRET_OVERLAP_SECONDS)), Boolean.parseBoolean(allowHttp), allowList,
                Duration.ofSeconds(config.longValue(Setting.JOB_RETENTION_SECONDS)));
    }

    /** The SSRF guard these settings describe, resolving names with {@code resolver}. */
    public UrlGuard guard(UrlGuard.Resolver resolver) {
        return new UrlGuard(allowHttp, allowList, resolver);
    }
}
