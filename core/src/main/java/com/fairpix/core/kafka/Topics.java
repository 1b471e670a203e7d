package com.fairpix.core.kafka;

/** Kafka topic layout. Job topics are keyed by tenant id, so a tenant's jobs stay on one partition. */
public final class Topics {
    public static final String EVENTS = "fairpix.events";
    public static final String DLQ = "fairpix.jobs.dlq";

    private Topics() {}

    /** {@code fairpix.jobs.cpu} or {@code fairpix.jobs.gpu}. */
    public static String jobs(String pool) {
        if (!pool.equals("cpu") && !pool.equals("gpu")) throw new IllegalArgumentException("pool must be cpu or gpu, got " + pool);
        return "fairpix.jobs." + pool;
    }

    /** Consumer group of a worker pool. */
    public static String workerGroup(String pool) {
        return "fairpix-workers-" + pool;
    }
}
