package com.fairpix.autoscaler.signal.internal;

import com.fairpix.autoscaler.signal.PoolSignals;
import com.fairpix.autoscaler.signal.SignalSource;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real signals: consumer lag from Kafka and ingest QPS from Redis. If either fails the whole
 * reading fails (a lag without its QPS, or the reverse, is a partial reading and must not drive a
 * scale-in).
 */
public final class FarmSignalSource implements SignalSource {
    private static final Logger log = LoggerFactory.getLogger(FarmSignalSource.class);

    private final KafkaLagReader lag;
    private final IngestQpsReader qps;
    private final int qpsSeconds;
    private final AutoCloseable resources;
    private final com.fairpix.core.kafka.TenantPlacement placement;
    private final java.util.function.ToDoubleFunction<String> rateOf;
    private final java.util.function.ToLongFunction<String> inFlightOf;

    /**
     * @param qpsSeconds complete seconds QPS is averaged over (usually the evaluation period)
     * @param resources  closed with this source (the Redis client)
     */
    public FarmSignalSource(KafkaLagReader lag, IngestQpsReader qps, int qpsSeconds, AutoCloseable resources) {
        this(lag, qps, qpsSeconds, resources, new com.fairpix.core.kafka.TenantPlacement(0), t -> 0, t -> -1);
    }

    /**
     * @param placement which partitions carry a tenant's jobs, to attribute lag to tenants
     * @param rateOf    a tenant's admission rate, tokens/s (its placement width depends on it)
     * @param inFlightOf a tenant's jobs queued or running farm-wide (its admission leases), -1 when unknown:
     *                   a partition shared by several tenants says nothing of whose its lag is, so a
     *                   tenant's backlog is at most its own jobs in flight
     */
    public FarmSignalSource(KafkaLagReader lag, IngestQpsReader qps, int qpsSeconds, AutoCloseable resources,
                            com.fairpix.core.kafka.TenantPlacement placement, java.util.function.ToDoubleFunction<String> rateOf,
                            java.util.function.ToLongFunction<String> inFlightOf) {
        this.inFlightOf = inFlightOf;
        this.placement = placement;
        this.rateOf = rateOf;
        this.lag = lag;
        this.qps = qps;
        this.qpsSeconds = qpsSeconds;
        this.resources = resources;
    }

    @Override
    public PoolSignals read(String pool, Instant now) {
        try {
            Map<Integer, Long> byPartition = lag.lagByPartition(pool);
            double q = qps.qps(pool, now, qpsSeconds);
            Map<String, Long> tenants = new HashMap<>();
            if (!byPartition.isEmpty()) {
                List<String> known;
                try {
                    known = qps.tenants(pool, now);
                } catch (RuntimeException e) {
                    known = List.of(); // the per-tenant view is informative only; never fail the reading for it
                }
                for (String t : known) {
                    // The lag of the partitions the tenant's jobs go to (shared with other tenants: informative only).
                    long l = 0;
                    for (int p : placement.partitions(t, rateOf(t), byPartition.size())) l += byPartition.getOrDefault(p, 0L);
                    long own = inFlightOf(t);
                    if (own >= 0) l = Math.min(l, own);
                    if (l > 0) tenants.put(t, l);
                }
            }
            return PoolSignals.of(pool, now, q, byPartition, byPartition.size(), tenants).withCostPerJob(qps.costPerJob(pool, now));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return PoolSignals.failed(pool, now, "interrupted");
        } catch (Exception e) {
            Throwable cause = e.getCause() != null && e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
            log.warn("signal reading for pool {} failed: {}", pool, cause.toString());
            return PoolSignals.failed(pool, now, cause.getClass().getSimpleName() + ": " + cause.getMessage());
        }
    }

    private long inFlightOf(String tenant) {
        try {
            return inFlightOf.applyAsLong(tenant);
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private double rateOf(String tenant) {
        try {
            return rateOf.applyAsDouble(tenant);
        } catch (RuntimeException e) {
            return 0; // unknown: its home partition alone
        }
    }

    @Override
    public void close() {
        lag.close();
        try {
            resources.close();
        } catch (Exception ignored) {
            // shutting down
        }
    }
}
