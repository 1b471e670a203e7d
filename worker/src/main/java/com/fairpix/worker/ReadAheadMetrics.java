package com.fairpix.worker;

import com.fairpix.core.metrics.MetricNames;
import com.fairpix.core.metrics.TenantTags;
import com.fairpix.worker.consume.JobConsumer;
import com.fairpix.worker.consume.ReadAhead;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The read-ahead's metrics: what the worker holds (records, bytes), and per tenant (bounded labels
 * through {@link TenantTags}) the age of its oldest waiting job, and the jobs held back (the read-past counter is counted where it happens).
 */
final class ReadAheadMetrics {
    private ReadAheadMetrics() {}

    static void bind(JobConsumer consumer, MeterRegistry registry, String pool, TenantTags tenantTags, Clock clock,
                     ScheduledExecutorService timer) {
        ReadAhead readAhead = consumer.readAhead();
        Gauge.builder(MetricNames.READ_AHEAD_RECORDS, readAhead::records).tag("pool", pool)
                .description("job records the worker holds in memory (buffered, not yet started)").register(registry);
        Gauge.builder(MetricNames.READ_AHEAD_BYTES, readAhead::bytes).tag("pool", pool).baseUnit("bytes")
                .description("bytes of job records the worker holds in memory").register(registry);
        MultiGauge queueAge = MultiGauge.builder(MetricNames.TENANT_QUEUE_AGE).baseUnit("seconds")
                .description("age of the tenant's oldest job waiting in this worker (buffered or held back), seconds").register(registry);
        MultiGauge heldBack = MultiGauge.builder(MetricNames.TENANT_HELD_BACK)
                .description("the tenant's jobs this worker read past and has not fetched again (its buffer was full)").register(registry);
        timer.scheduleAtFixedRate(() -> {
            long now = clock.millis();
            Map<String, Double> ages = new HashMap<>();
            readAhead.oldestWaiting().forEach((t, ts) -> ages.merge(tenantTags.peek(t), Math.max(0, now - ts) / 1000.0, Math::max));
            Map<String, Double> held = new HashMap<>();
            readAhead.heldBack().forEach((t, n) -> held.merge(tenantTags.peek(t), (double) n, Double::sum));
            queueAge.register(rows(ages, pool), true);
            heldBack.register(rows(held, pool), true);
        }, 1, 1, TimeUnit.SECONDS);
    }

    private static List<MultiGauge.Row<?>> rows(Map<String, Double> values, String pool) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        values.forEach((t, v) -> rows.add(MultiGauge.Row.of(Tags.of("pool", pool, "tenant", t), v)));
        return rows;
    }
}
