package com.fairpix.ingest.overload.internal;

import com.fairpix.core.error.RetryLater;
import com.fairpix.core.metrics.MetricNames;
import com.fairpix.core.resilience.Breakers;
import com.fairpix.core.resilience.Dependency;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.admission.Decision;
import com.fairpix.ingest.overload.OverloadConfig;
import com.fairpix.ingest.overload.OverloadGuard;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;

/**
 * Binds the overload guard's meters from outside it (as resilience4j-micrometer does): every
 * refusal counted by reason ({@code breaker-<dependency>}, {@code ramp}, {@code shed-borrowed},
 * {@code shed-reserved}; each at 0 from the start, so rate() and alerts see a series before the
 * first), the ramp level, each pool's shedding level and backlog (when shedding is on), and which
 * breakers are open farm-wide.
 */
public final class MeteredOverloadGuard implements OverloadGuard {
    private final OverloadGuard delegate;
    private final MeterRegistry meters;

    /** @param pools the pools whose shedding level and backlog get a gauge */
    public MeteredOverloadGuard(OverloadGuard delegate, MeterRegistry meters, List<String> pools) {
        this.delegate = delegate;
        this.meters = meters;
        Gauge.builder(MetricNames.OVERLOAD_RAMP_LEVEL, delegate, OverloadGuard::rampLevel).description("admission level during a ramped recovery, 0..1").register(meters);
        for (String pool : pools) {
            Gauge.builder(MetricNames.OVERLOAD_SHEDDING_LEVEL, delegate, g -> g.sheddingLevel(pool)).tag("pool", pool).register(meters);
            if (delegate.config().shedding()) {
                Gauge.builder(MetricNames.OVERLOAD_BACKLOG, delegate, g -> {
                    double s = g.backlogSeconds(pool);
                    return Double.isNaN(s) ? 0 : s;
                }).tag("pool", pool).register(meters);
            }
        }
        for (Dependency d : Dependency.values()) meters.counter(MetricNames.OVERLOAD_SHED, "reason", "breaker-" + d.id());
        for (String reason : List.of("ramp", "shed-borrowed", "shed-reserved")) meters.counter(MetricNames.OVERLOAD_SHED, "reason", reason);
        for (Dependency d : Dependency.values()) {
            Gauge.builder(MetricNames.OVERLOAD_FARM_BREAKER_OPEN, delegate, g -> g.farmBreakerOpen(d) ? 1 : 0).tag("dependency", d.id()).register(meters);
        }
    }

    @Override
    public void checkBreakers() {
        try {
            delegate.checkBreakers();
        } catch (RetryLater e) {
            throw counted(e);
        }
    }

    @Override
    public void checkAdmitted(Tenant tenant, String pool, Decision decision) {
        try {
            delegate.checkAdmitted(tenant, pool, decision);
        } catch (RetryLater e) {
            throw counted(e);
        }
    }

    @Override
    public RetryLater breakerOpen(Dependency d) {
        return counted(delegate.breakerOpen(d));
    }

    /** Counts a refusal under its reason: {@code breaker-} and the dependency, or the overload reason. */
    private RetryLater counted(RetryLater e) {
        String reason = e.kind() == RetryLater.Kind.DEPENDENCY ? "breaker-" + e.what() : e.what();
        meters.counter(MetricNames.OVERLOAD_SHED, "reason", reason).increment();
        return e;
    }

    @Override
    public Breakers breakers() {
        return delegate.breakers();
    }

    @Override
    public OverloadConfig config() {
        return delegate.config();
    }

    @Override
    public double rampLevel() {
        return delegate.rampLevel();
    }

    @Override
    public int sheddingLevel(String pool) {
        return delegate.sheddingLevel(pool);
    }

    @Override
    public double backlogSeconds(String pool) {
        return delegate.backlogSeconds(pool);
    }

    @Override
    public boolean farmBreakerOpen(Dependency d) {
        return delegate.farmBreakerOpen(d);
    }

    @Override
    public Map<String, Object> status() {
        return delegate.status();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
