package com.fairpix.webhooks;

import com.fairpix.core.metrics.MetricNames;
import com.fairpix.core.metrics.TenantTags;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds a dispatcher's meters from outside it (as resilience4j-micrometer does): attempts by
 * outcome and tenant, their duration, deferrals by reason, dead letters by tenant, and the pending
 * deliveries. Names are in {@link MetricNames}.
 */
public final class DispatcherMetrics implements MeterBinder {
    private final WebhookDispatcher dispatcher;
    private final int tenantLabels;
    private final java.util.function.LongSupplier nanos;

    /**
     * @param tenantLabels tenants with a {@code tenant} label of their own ({@code metrics.tenant-labels}); the rest are {@code other}
     * @param nanos        a monotonic nanosecond source (which tenants are labelled is re-ranked by recent volume)
     */
    public DispatcherMetrics(WebhookDispatcher dispatcher, int tenantLabels, java.util.function.LongSupplier nanos) {
        this.dispatcher = dispatcher;
        this.tenantLabels = tenantLabels;
        this.nanos = nanos;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        TenantTags tenantTags = new TenantTags(registry, tenantLabels, nanos);
        Gauge.builder(MetricNames.WEBHOOK_PENDING, () -> {
            try {
                return dispatcher.pending();
            } catch (RuntimeException e) {
                return Double.NaN;
            }
        }).description("webhook deliveries waiting for an attempt").register(registry);
        dispatcher.onEvent(event -> {
            switch (event) {
                case DispatchEvent.Attempted a -> {
                    registry.timer(MetricNames.WEBHOOK_ATTEMPT_DURATION, "tenant", tenantTags.tag(a.tenant())).record(a.elapsed());
                    registry.counter(MetricNames.WEBHOOK_ATTEMPTS, "outcome", a.outcome().label, "tenant", tenantTags.tag(a.tenant())).increment();
                }
                case DispatchEvent.Deferred d -> {
                    // An open breaker has always been counted among the attempts too (outcome breaker-open).
                    if (d.reason() == DispatchEvent.Reason.BREAKER_OPEN) {
                        registry.counter(MetricNames.WEBHOOK_ATTEMPTS, "outcome", d.reason().label, "tenant", tenantTags.tag(d.tenant())).increment();
                    }
                    registry.counter(MetricNames.WEBHOOK_DEFERRED, "reason", d.reason().label).increment();
                }
                case DispatchEvent.DeadLettered d -> registry.counter(MetricNames.WEBHOOK_DEAD_LETTERED, "tenant", tenantTags.tag(d.tenant())).increment();
            }
        });
    }
}
