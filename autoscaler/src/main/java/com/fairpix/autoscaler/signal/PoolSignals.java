package com.fairpix.autoscaler.signal;

import java.time.Instant;
import java.util.Map;

/**
 * One reading of a pool's load, taken at {@code at}. A failed or partial reading has
 * {@code ok == false} and an {@code error}; its numbers are meaningless and must never be read as
 * zero (a broker outage is not an empty queue).
 *
 * @param qps             jobs accepted by all ingest nodes for this pool, per second, averaged over
 *                        the last complete seconds (source: the per-second Redis counters)
 * @param lag             consumer lag in messages, summed over partitions (log-end offset minus the
 *                        group's committed offset; a partition without a commit counts from the
 *                        log-start offset)
 * @param lagByPartition  partition → lag in messages
 * @param partitions      partitions of the pool's topic
 * @param tenantBacklog   tenant → lag of the partitions its jobs go to, at most its own jobs in flight, in messages (an upper bound
 *                        when tenants share a partition); only tenants with a backlog
 * @param costPerJob      mean cost (admission tokens, the cost unit) of the jobs ingest accepted for the pool
 *                        in the last minute; NaN when none was (the policy then uses {@code autoscaler.cost-per-job})
 */
public record PoolSignals(String pool, Instant at, boolean ok, String error, double qps, long lag,
                          Map<Integer, Long> lagByPartition, int partitions, Map<String, Long> tenantBacklog, double costPerJob) {

    public PoolSignals {
        lagByPartition = lagByPartition == null ? Map.of() : Map.copyOf(lagByPartition);
        tenantBacklog = tenantBacklog == null ? Map.of() : Map.copyOf(tenantBacklog);
    }

    /** A good reading. */
    public static PoolSignals of(String pool, Instant at, double qps, Map<Integer, Long> lagByPartition, int partitions,
                                 Map<String, Long> tenantBacklog) {
        long lag = lagByPartition.values().stream().mapToLong(Long::longValue).sum();
        return new PoolSignals(pool, at, true, null, qps, lag, lagByPartition, partitions, tenantBacklog, Double.NaN);
    }

    /** This reading with the measured mean cost per job (cost units; NaN: not known). */
    public PoolSignals withCostPerJob(double costPerJob) {
        return new PoolSignals(pool, at, ok, error, qps, lag, lagByPartition, partitions, tenantBacklog, costPerJob);
    }

    /** A reading that failed: the autoscaler holds. */
    public static PoolSignals failed(String pool, Instant at, String error) {
        return new PoolSignals(pool, at, false, error, 0, 0, Map.of(), 0, Map.of(), Double.NaN);
    }

    /** Partitions with at least one message of lag: more replicas than this would sit idle. */
    public int partitionsWithLag() {
        return (int) lagByPartition.values().stream().filter(l -> l > 0).count();
    }
}
