package com.fairpix.core.kafka;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * Which partitions of a job topic carry a tenant's jobs. A tenant maps to a run of {@code width}
 * consecutive partitions starting at its <em>home</em> partition, the one Kafka's default
 * partitioner would pick for the tenant id as key (murmur2, as {@code BuiltInPartitioner}), so a
 * tenant of width 1 lands exactly where a plain keyed producer puts it. Each job goes to one
 * partition of the run, chosen by its job id: a tenant of width {@code w} spreads its jobs evenly
 * over {@code w} partitions, hence over up to {@code w} workers of the pool.
 *
 * <p>The width comes from the tenant's admission rate (tokens/s): {@code ceil(rate /
 * partitionRate)}, between 1 and the partition count. A tenant allowed to submit more than one
 * partition's worth of work gets more partitions, so a pool can grow for its backlog; the
 * autoscaler's "partitions with lag" cap then lets it. Pure arithmetic, no state: cheap with
 * 10,000 tenants, and every node (ingest, worker, autoscaler, benches) computes the same set from
 * the tenant record. docs/isolation.md explains the choice.
 */
public final class TenantPlacement {
    private final double partitionRate;

    /**
     * @param partitionRate tokens/s of admitted rate per partition of a tenant's run; 0 (or less)
     *                      puts every tenant on its home partition only
     */
    public TenantPlacement(double partitionRate) {
        if (Double.isNaN(partitionRate)) throw new IllegalArgumentException("partitionRate must be a number");
        this.partitionRate = partitionRate;
    }

    /** Partitions in a tenant's run, 1..{@code partitions}, for its admission {@code rate} in tokens/s. */
    public int width(double rate, int partitions) {
        if (partitions < 1) throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
        if (partitionRate <= 0 || !(rate > partitionRate)) return 1;
        double w = Math.ceil(rate / partitionRate);
        return (int) Math.min(partitions, w);
    }

    /** The home partition: murmur2 of the tenant id, as Kafka's default partitioner picks it for that key. */
    public static int home(String tenant, int partitions) {
        return Utils.toPositive(Utils.murmur2(tenant.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    /** The tenant's partitions, home first: {@code home, home+1, ... (mod partitions)}, {@code width} of them. */
    public int[] partitions(String tenant, double rate, int partitions) {
        int w = width(rate, partitions);
        int h = home(tenant, partitions);
        int[] out = new int[w];
        for (int i = 0; i < w; i++) out[i] = (h + i) % partitions;
        return out;
    }

    /** True when the tenant's run covers {@code partition}. */
    public boolean covers(String tenant, double rate, int partitions, int partition) {
        int w = width(rate, partitions);
        int offset = Math.floorMod(partition - home(tenant, partitions), partitions);
        return offset < w;
    }

    /** The partition for one job: a member of the tenant's run picked by the job id's hash. */
    public int partitionFor(String tenant, double rate, String jobId, int partitions) {
        int w = width(rate, partitions);
        int h = home(tenant, partitions);
        if (w == 1) return h;
        int pick = Utils.toPositive(Utils.murmur2(jobId.getBytes(StandardCharsets.UTF_8))) % w;
        return (h + pick) % partitions;
    }
}
