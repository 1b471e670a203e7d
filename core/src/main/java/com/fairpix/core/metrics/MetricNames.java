package com.fairpix.core.metrics;

/** Metric names, Prometheus style (Micrometer adds {@code _total} to counters and {@code _seconds} to timers). */
public final class MetricNames {
    private MetricNames() {}

    public static final String JOBS_SUBMITTED = "fairpix.jobs.submitted";
    public static final String JOBS_REJECTED = "fairpix.jobs.rejected";
    public static final String UPLOAD_BYTES = "fairpix.upload.bytes";
    /** A worker replica's measured capacity, cost units/s (tag pool). */
    public static final String WORKER_CAPACITY = "fairpix.worker.capacity.cost.per.second";
    /** Capacity C admission hands out in a pool, tokens/s (gauge, tag pool). */
    public static final String ADMISSION_CAPACITY = "fairpix.admission.capacity.tokens.per.second";
    /** Sum of the guarantees of a pool's active tenants, tokens/s (gauge, tag pool). */
    public static final String ADMISSION_GUARANTEES = "fairpix.admission.guarantees.tokens.per.second";
    /** Σ guarantees ÷ a pool's measured capacity (gauge, tag pool). */
    public static final String ADMISSION_OVERCOMMIT = "fairpix.admission.overcommit.ratio";
    /** The factor on a pool's guaranteed rates, (0, 1] (gauge, tag pool). */
    public static final String ADMISSION_GUARANTEE_SCALE = "fairpix.admission.guarantee.scale";
    /** Tokens/s a pool's tenants asked (admitted or refused) over the last seconds, each up to its rate (gauge, tag pool). */
    public static final String ADMISSION_DEMAND = "fairpix.admission.demand.tokens.per.second";
    /** Tokens/s one tenant asked in a pool, for the tenants asking most only (gauge, tags pool and tenant; at most 10 tenants a pool). */
    public static final String ADMISSION_TENANT_DEMAND = "fairpix.admission.tenant.demand.tokens.per.second";
    /** The guaranteed rate admission gives one tenant in a pool now, for the tenants asking most only (gauge, tags pool and tenant; at most 10 a pool). */
    public static final String ADMISSION_TENANT_GUARANTEE = "fairpix.admission.tenant.guarantee.tokens.per.second";
    /** A pool's tenants active in the window (gauge, tag pool). */
    public static final String ADMISSION_ACTIVE_TENANTS = "fairpix.admission.active.tenants";
    /** Uploads answered 429 too-many-refusals before their body was read (tag: outcome throttled), and refusals charged (outcome charged). */
    public static final String UPLOAD_REFUSALS = "fairpix.upload.refusals";
    /** Uploads served on the ingest's background-priority lane (their tenant over its share). */
    public static final String INGEST_OVER_SHARE_UPLOADS = "fairpix.ingest.over.share.uploads";
    public static final String JOBS_COMPLETED = "fairpix.jobs.completed";
    /** CPU seconds of finished jobs' image work, as measured where it ran (a processor, or the processing thread in-process); tag tenant. */
    public static final String TENANT_JOB_CPU = "fairpix.tenant.job.cpu";
    /** Peak resident memory of finished jobs, bytes, measured from their processor (not recorded in-process); tag tenant. */
    public static final String JOB_PEAK_RSS = "fairpix.job.peak.rss";
    /** Tokens charged to tenants after their jobs, for CPU spent past the estimate (TrueUp); tag tenant. */
    public static final String TRUE_UP_TOKENS = "fairpix.true.up.tokens";
    public static final String JOB_PROCESSING = "fairpix.job.processing";
    public static final String JOB_QUEUE_WAIT = "fairpix.job.queue.wait";
    public static final String JOBS_RUNNING = "fairpix.jobs.running";
    /** Job attempts that ended in a Java Error (by class) or found their attempts used up by crashed workers ({@code attempts-exhausted}). */
    public static final String WORKER_JOB_ERRORS = "fairpix.worker.job.errors";
    /** Requests refused for the client's own fault (4xx), by HTTP status and problem type; never counted against a dependency. */
    public static final String CLIENT_ERRORS = "fairpix.http.client.errors";
    public static final String JOBS_BUFFERED = "fairpix.jobs.buffered";
    /** Jobs the worker's watchdog failed because one step ran past twice the time limit (counter). */
    public static final String JOBS_ABANDONED = "fairpix.worker.jobs.abandoned";
    /** Job records the ingest's orphan sweep FAILED enqueue-failed: QUEUED long after a send never confirmed (counter). */
    public static final String JOBS_ORPHANED = "fairpix.ingest.jobs.orphaned";
    /** Job attempts a dependency outage ended, by {@code dependency}: parked and retried after a back-off, no attempt spent (counter). */
    public static final String JOBS_PARKED = "fairpix.worker.jobs.parked";
    /** Job records a worker holds in memory (gauge). */
    public static final String READ_AHEAD_RECORDS = "fairpix.worker.read.ahead.records";
    /** Bytes of job records a worker holds in memory (gauge). */
    public static final String READ_AHEAD_BYTES = "fairpix.worker.read.ahead";
    /** Age of a tenant's oldest job waiting in a worker, seconds (gauge, per tenant). */
    public static final String TENANT_QUEUE_AGE = "fairpix.tenant.queue.age";
    /** A tenant's jobs a worker read past and has not fetched again (gauge, per tenant). */
    public static final String TENANT_HELD_BACK = "fairpix.tenant.jobs.held.back";
    /** A tenant's job records read past because its buffer was full (counter, per tenant). */
    public static final String TENANT_READ_PAST = "fairpix.tenant.jobs.read.past";
    /** Native pixel memory reserved by running jobs, bytes (gauge). */
    public static final String NATIVE_MEMORY_RESERVED = "fairpix.worker.native.memory.reserved.bytes";
    /** Cost units (tokens, {@link com.fairpix.core.job.JobCost}) of work a worker did for a tenant. */
    public static final String TENANT_SERVICE = "fairpix.tenant.service.cost";
    public static final String FAIRNESS_INDEX = "fairpix.scheduler.fairness.index";
    /** Webhook attempts by outcome (success, failure, refused) and tenant. */
    public static final String WEBHOOK_ATTEMPTS = "fairpix.webhook.attempts";
    /** Duration of one webhook attempt, seconds. */
    public static final String WEBHOOK_ATTEMPT_DURATION = "fairpix.webhook.attempt.duration";
    /** Deliveries dead-lettered after their last attempt (or disabled by 410). */
    public static final String WEBHOOK_DEAD_LETTERED = "fairpix.webhook.dead.lettered";
    /** Webhook attempts put back without being made, by reason (endpoint-busy, tenant-busy, dispatcher-busy, breaker-open). */
    public static final String WEBHOOK_DEFERRED = "fairpix.webhook.deferred";
    /** Deliveries waiting for an attempt (due now or later). */
    public static final String WEBHOOK_PENDING = "fairpix.webhook.pending";

    /** Gauge, per pool: replicas the autoscaler wants. */
    public static final String AUTOSCALER_DESIRED_REPLICAS = "fairpix.autoscaler.desired.replicas";
    /** Gauge, per pool: replicas the actuator reports running. */
    public static final String AUTOSCALER_ACTUAL_REPLICAS = "fairpix.autoscaler.actual.replicas";
    /** Counter, per pool and reason: decisions taken (one per evaluation period). */
    public static final String AUTOSCALER_DECISIONS = "fairpix.autoscaler.decisions";
    /** Gauge, per pool: consumer lag in messages at the last good reading. */
    public static final String AUTOSCALER_CONSUMER_LAG = "fairpix.autoscaler.consumer.lag.messages";
    /** Gauge, per pool: ingest submissions per second at the last good reading. */
    public static final String AUTOSCALER_INGEST_QPS = "fairpix.autoscaler.ingest.qps";
    /** Counter, per pool: signal readings that failed (the autoscaler held). */
    public static final String AUTOSCALER_FAILED_READINGS = "fairpix.autoscaler.failed.readings";

    /** Tokens admitted (cost units), by tenant. Counter. */
    public static final String QUOTA_CONSUMED = "fairpix.quota.consumed";
    /** Tokens left in a tenant's guaranteed bucket after its last decision. Gauge. */
    public static final String QUOTA_REMAINING = "fairpix.quota.remaining";
    /** Enforced rejections, by tenant and reason (rate, daily-quota, concurrency, cost-exceeds-burst, backend). */
    public static final String QUOTA_REJECTIONS = "fairpix.quota.rejections";
    /** Tokens admitted above the tenant's guarantee, borrowed from the farm's pool. Counter. */
    public static final String QUOTA_BORROWED = "fairpix.quota.borrowed";
    /** Decisions a policy in shadow mode would have rejected (counted, not enforced), by reason. */
    public static final String QUOTA_SHADOW_REJECTIONS = "fairpix.quota.shadow.rejections";
    /** Decisions taken on the local per-node budget because Redis was unreachable (fail open). */
    public static final String QUOTA_FALLBACK_DECISIONS = "fairpix.quota.fallback.decisions";

    /** Requests answered 503 by overload protection, by reason (breaker-kafka, breaker-s3, breaker-redis, ramp, shed-borrowed, shed-reserved). Counter. */
    public static final String OVERLOAD_SHED = "fairpix.overload.shed.requests";
    /** The farm's admission level during a ramped recovery, 0..1 (1 = normal). Gauge. */
    public static final String OVERLOAD_RAMP_LEVEL = "fairpix.overload.ramp.level";
    /** Shedding level per pool: 0 none, 1 borrowed traffic shed, 2 all but the reserved share shed. Gauge. */
    public static final String OVERLOAD_SHEDDING_LEVEL = "fairpix.overload.shedding.level";
    /** A pool's backlog as this node last read it, estimated work-seconds. Gauge. */
    public static final String OVERLOAD_BACKLOG = "fairpix.overload.backlog.seconds";
    /** 1 while the farm view holds a dependency's breaker open (on this node or another), by dependency. Gauge. */
    public static final String OVERLOAD_FARM_BREAKER_OPEN = "fairpix.overload.farm.breaker.open";
}
