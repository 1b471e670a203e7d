package com.fairpix.core.metrics;

/** Metric names, Prometheus style (Micrometer adds {@code _total} to counters and {@code _seconds} to timers). */
public final class MetricNames {
    private MetricNames() {}

    public static final String JOBS_SUBMITTED = "fairpix.jobs.submitted";
    public static final String JOBS_REJECTED = "fairpix.jobs.rejected";
    public static final String UPLOAD_BYTES = "fairpix.upload.bytes";
    public static final String JOBS_COMPLETED = "fairpix.jobs.completed";
    public static final String JOB_PROCESSING = "fairpix.job.processing";
    public static final String JOB_QUEUE_WAIT = "fairpix.job.queue.wait";
    public static final String JOBS_RUNNING = "fairpix.jobs.running";
    public static final String JOBS_BUFFERED = "fairpix.jobs.buffered";
    /** Cost units (megapixels x operations) of work a worker did for a tenant. */
    public static final String TENANT_SERVICE = "fairpix.tenant.service.cost";
    public static final String FAIRNESS_INDEX = "fairpix.scheduler.fairness.index";
    /** Webhook attempts by outcome (success, failure, refused) and tenant. */
    public static final String WEBHOOK_ATTEMPTS = "fairpix.webhook.attempts";
    /** Duration of one webhook attempt, seconds. */
    public static final String WEBHOOK_ATTEMPT_DURATION = "fairpix.webhook.attempt.duration";
    /** Deliveries dead-lettered after their last attempt (or disabled by 410). */
    public static final String WEBHOOK_DEAD_LETTERED = "fairpix.webhook.dead.lettered";
    /** Deliveries waiting for an attempt (due now or later). */
    public static final String WEBHOOK_PENDING = "fairpix.webhook.pending";
}
