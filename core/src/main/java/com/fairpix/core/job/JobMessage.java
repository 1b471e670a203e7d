package com.fairpix.core.job;

import java.time.Instant;

/**
 * The Kafka message on {@code fairpix.jobs.{pool}}, keyed by tenant id.
 *
 * @param cost estimated work in cost units: the tokens admission charged for the job (its
 *             estimated CPU, {@link JobCost}, under the default {@code admission.cost-model}), so
 *             the fair scheduler, the backlog and admission count in one unit
 */
public record JobMessage(
        int schemaVersion,
        String jobId,
        String tenant,
        String pool,
        JobRecord.Original original,
        JobSpec spec,
        double cost,
        Instant submittedAt) {
    public static final int SCHEMA_VERSION = 1;

    /**
     * The cost the fair scheduler charges the tenant for this job, cost units: {@link #cost}, bounded to
     * 0.01..1,000,000 (NaN or infinite: 1), since a bad value must not stall or skew the scheduler.
     */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public double schedulingCost() {
        return Double.isFinite(cost) ? Math.min(1e6, Math.max(0.01, cost)) : 1.0;
    }
}
