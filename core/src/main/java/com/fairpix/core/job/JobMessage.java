package com.fairpix.core.job;

import java.time.Instant;

/**
 * The Kafka message on {@code fairpix.jobs.{pool}}, keyed by tenant id.
 *
 * @param cost estimated work in cost units (megapixels × operations), for the fair scheduler
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
}
