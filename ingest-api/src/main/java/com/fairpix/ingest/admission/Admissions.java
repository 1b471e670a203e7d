package com.fairpix.ingest.admission;

import com.fairpix.ingest.admission.internal.FailoverAdmission;
import com.fairpix.ingest.admission.internal.LocalAdmission;
import com.fairpix.ingest.admission.internal.MeteredAdmission;
import com.fairpix.ingest.admission.internal.RedisAdmission;
import com.fairpix.core.metrics.TenantTags;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.function.LongSupplier;
import redis.clients.jedis.UnifiedJedis;

/** Builds the admission limiters; the only way in from outside the package. */
public final class Admissions {
    private Admissions() {}

    /**
     * The production limiter: Redis-shared, with the configured outage policy, metered; each pool's
     * share read from {@code share} on every decision (the ingest's measured {@code FarmCapacity}).
     *
     * @param clock the wall clock of the per-node budgets during a Redis outage
     * @param nanos monotonic clock, nanoseconds, of this node's pool leases
     */
    public static Admission redis(UnifiedJedis redis, AdmissionConfig config, FarmShare share, MeterRegistry registry, TenantTags tenantTags,
                                  Clock clock, LongSupplier nanos) {
        return new MeteredAdmission(new FailoverAdmission(new RedisAdmission(redis, config, share, nanos), config, share, clock), registry, tenantTags);
    }

    /**
     * The Redis-shared limiter alone, with the config's own capacity: no outage fallback, no
     * metrics (what the admission benchmark measures).
     *
     * @param nanos monotonic clock, nanoseconds, of this node's pool leases
     */
    public static Admission redisAlone(UnifiedJedis redis, AdmissionConfig config, LongSupplier nanos) {
        return new RedisAdmission(redis, config, nanos);
    }

    /** One node, in memory, on {@code clock}. */
    public static Admission local(AdmissionConfig config, Clock clock) {
        return new LocalAdmission(config, clock);
    }

    /** One node, in memory, on {@code clock}, each pool's share read from {@code share} on every decision (which counts its demand there). */
    public static Admission local(AdmissionConfig config, Clock clock, FarmShare share) {
        return new LocalAdmission(config, clock, share, java.util.function.UnaryOperator.identity());
    }
}
