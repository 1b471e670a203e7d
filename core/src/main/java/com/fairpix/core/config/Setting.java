package com.fairpix.core.config;

/**
 * Every configuration key of fairpix, declared once with its environment variable, default and
 * meaning. Precedence: command-line flag, then environment ({@code FAIRPIX_*}), then the
 * properties file ({@code --config} / {@code FAIRPIX_CONFIG}), then the default.
 */
public enum Setting {
    KAFKA_BOOTSTRAP("kafka.bootstrap", "127.0.0.1:19092", "Kafka bootstrap servers (host:port,...)"),
    JOB_PARTITIONS("kafka.job-partitions", "12", "partitions of fairpix.jobs.{cpu,gpu} when fairpix creates them (caps a pool's useful replicas)"),
    REDIS_URL("redis.url", "redis://127.0.0.1:16379", "Redis URL (redis://host:port)"),
    S3_ENDPOINT("s3.endpoint", "http://127.0.0.1:19000", "S3 endpoint URL (path-style); empty for AWS itself"),
    S3_REGION("s3.region", "us-east-1", "S3 region"),
    S3_ACCESS_KEY("s3.access-key", "fairpix", "S3 access key id"),
    S3_SECRET_KEY("s3.secret-key", "fairpix-secret", "S3 secret access key"),
    S3_BUCKET("s3.bucket", "fairpix", "bucket holding originals and results (created when missing)"),
    BIND_HOST("http.bind-host", "127.0.0.1", "address the HTTP servers listen on"),
    INGEST_PORT("ingest.port", "8080", "ingest-api port (tenant API, admin API, /metrics, /health)"),
    WORKER_PORT("worker.port", "8081", "worker port (/metrics, /health)"),
    ADMIN_TOKEN("admin.token", "", "bearer token for /admin/v1; empty disables the admin API"),
    MAX_UPLOAD_BYTES("ingest.max-upload-bytes", "52428800", "largest upload any tenant may send, in bytes (a tenant's own limit may be lower)"),
    JOB_RETENTION_SECONDS("jobs.retention-seconds", "604800", "how long job records stay in Redis, in seconds"),
    WORKER_POOL("worker.pool", "cpu", "pool a worker consumes: cpu or gpu"),
    WORKER_THREADS("worker.threads", "0", "processing threads per worker; 0 = number of cores"),
    WORKER_MAX_ATTEMPTS("worker.max-attempts", "3", "attempts for a job failing transiently before it is dead-lettered"),
    WORKER_BUFFERED_JOBS("worker.buffered-jobs", "256", "jobs a worker buffers in memory before pausing consumption (backpressure)"),
    WORKER_MAX_PIXELS("worker.max-pixels", "100000000", "largest source a worker decodes, pixels (the tenant's maxPixels is checked at ingest)"),
    ADMISSION_FARM_CAPACITY("admission.farm-capacity", "0", "farm capacity C in tokens/s shared by all tenants; the part of it no tenant's guarantee (rate) uses is lent to tenants up to their ceiling; 0 turns borrowing off"),
    ADMISSION_POOL_BURST("admission.pool-burst", "0", "size of the farm's borrowing pool in tokens; 0 = one second of farm capacity"),
    ADMISSION_CEILING_FACTOR("admission.ceiling-factor", "2", "a tenant's ceiling rate (guarantee + borrowing) as a multiple of its rate, capped at the farm capacity (HTB ceil)"),
    ADMISSION_COST_BASE("admission.cost-base", "0", "tokens every job costs before its pixels, e.g. 0.5"),
    ADMISSION_COST_PER_MEGAPIXEL("admission.cost-per-megapixel", "1", "tokens per decoded megapixel per variant (a job's cost: base + this x max(1, megapixels) x variants)"),
    ADMISSION_LEASE_TTL_SECONDS("admission.lease-ttl-seconds", "900", "how long a job holds a concurrency slot unless the worker releases it earlier, seconds (a crashed worker's slot returns after this)"),
    ADMISSION_REDIS_DOWN("admission.redis-down", "open", "when Redis is unreachable: open (admit on a local per-node budget of each tenant's rate / nodes) or closed (503 with Retry-After)"),
    ADMISSION_NODES("admission.nodes", "1", "ingest nodes sharing the farm; the local fail-open budget of a tenant is its rate and burst divided by this"),
    ADMISSION_SHADOW("admission.shadow", "", "policies decided and counted but never enforced, comma-separated: rate, daily-quota, concurrency"),
    ADMISSION_DAY_OFFSET_SECONDS("admission.day-offset-seconds", "0", "start of the daily-quota day after 00:00 UTC, seconds (0 = UTC midnight)"),
    WORKER_SCHEDULER("worker.scheduler", "fair", "dispatch order across tenants: fair (start-time fair queueing by cost and weight) or fifo (baseline)"),
    WORKER_PARTITION_BUFFER("worker.partition-buffer", "32", "jobs a worker buffers from one partition before pausing that partition"),
    WORKER_MAX_POLL_INTERVAL_MS("worker.max-poll-interval-ms", "300000", "Kafka max.poll.interval.ms; the poll loop never waits on processing, so long jobs do not hit it"),
    METRICS_TENANT_LABELS("metrics.tenant-labels", "50", "tenants with their own 'tenant' label in /metrics (the most active ones); the rest are 'other'"),
    URL("cli.url", "http://127.0.0.1:8080", "base URL of the ingest-api the CLI talks to");

    private final String key;
    private final String defaultValue;
    private final String doc;

    Setting(String key, String defaultValue, String doc) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.doc = doc;
    }

    /** The properties-file key, e.g. {@code kafka.bootstrap}. */
    public String key() { return key; }

    /** The environment variable, e.g. {@code FAIRPIX_KAFKA_BOOTSTRAP}. */
    public String env() { return "FAIRPIX_" + name(); }

    public String defaultValue() { return defaultValue; }

    public String doc() { return doc; }
}
