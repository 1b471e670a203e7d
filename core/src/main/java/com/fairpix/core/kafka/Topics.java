package com.fairpix.core.kafka;

import com.fairpix.core.pool.Pool;

/** Kafka topic layout. Job topics are keyed by tenant id, so a tenant's jobs stay on one partition. */
public final class Topics {
    public static final String EVENTS = "fairpix.events";
    public static final String DLQ = "fairpix.jobs.dlq";

    private Topics() {}

    /** {@code fairpix.jobs.cpu} or {@code fairpix.jobs.gpu}. */
    public static String jobs(String pool) {
        return "fairpix.jobs." + Pool.parse(pool).wire();
    }

    /** Consumer group of a worker pool. */
    public static String workerGroup(String pool) {
        return "fairpix-workers-" + pool;
    }
}
