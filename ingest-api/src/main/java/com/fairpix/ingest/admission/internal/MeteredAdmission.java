package com.fairpix.ingest.admission.internal;

import com.fairpix.core.metrics.MetricNames;
import com.fairpix.core.metrics.TenantTags;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.admission.Admission;
import com.fairpix.ingest.admission.Decision;
import com.fairpix.ingest.admission.Limits;
import com.fairpix.ingest.admission.Policy;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Binds admission metrics from outside the limiter (as resilience4j-micrometer does): tokens
 * consumed and borrowed, tokens remaining, rejections and shadow rejections by reason.
 */
public final class MeteredAdmission implements Admission {
    private final Admission delegate;
    private final MeterRegistry registry;
    private final TenantTags tenantTags;
    private final Map<String, AtomicLong> remaining = new ConcurrentHashMap<>();

    /** @param tenantTags bounds the {@code tenant} label (the most active tenants, the rest {@code other}) */
    public MeteredAdmission(Admission delegate, MeterRegistry registry, TenantTags tenantTags) {
        this.delegate = delegate;
        this.registry = registry;
        this.tenantTags = tenantTags;
    }

    @Override
    public Decision decide(Tenant tenant, String pool, long cost, String jobId) {
        Decision d = delegate.decide(tenant, pool, cost, jobId);
        String t = tenantTags.tag(tenant.id());
        remaining.computeIfAbsent(t, k -> {
            AtomicLong v = new AtomicLong();
            Gauge.builder(MetricNames.QUOTA_REMAINING, v, x -> x.get() / (double) Limits.NANO).tag("tenant", k)
                    .register(registry); // no base unit: the Prometheus name stays fairpix_quota_remaining
            return v;
        }).set(d.remainingNano());
        if (d.allowed()) {
            registry.counter(MetricNames.QUOTA_CONSUMED, "tenant", t).increment(cost / (double) Limits.NANO);
            if (d.borrowedNano() > 0) registry.counter(MetricNames.QUOTA_BORROWED, "tenant", t).increment(d.borrowedNano() / (double) Limits.NANO);
        } else {
            for (Policy p : d.violated()) registry.counter(MetricNames.QUOTA_REJECTIONS, "tenant", t, "reason", p.id()).increment();
        }
        for (Policy p : d.shadowViolated()) registry.counter(MetricNames.QUOTA_SHADOW_REJECTIONS, "tenant", t, "reason", p.id()).increment();
        if (d.fallback()) registry.counter(MetricNames.QUOTA_FALLBACK_DECISIONS, "tenant", t).increment();
        return d;
    }

    @Override
    public Decision standing(Tenant tenant) {
        return delegate.standing(tenant);
    }

    @Override
    public void charge(Tenant tenant, long cost) {
        delegate.charge(tenant, cost);
        registry.counter(MetricNames.QUOTA_CONSUMED, "tenant", tenantTags.tag(tenant.id())).increment(cost / (double) Limits.NANO);
    }

    @Override
    public void release(String tenant, String jobId) {
        delegate.release(tenant, jobId);
    }
}
