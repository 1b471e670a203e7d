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
    WORKER_SCHEDULER("worker.scheduler", "fair", "dispatch order across tenants: fair (start-time fair queueing by cost and weight) or fifo (baseline)"),
    WORKER_PARTITION_BUFFER("worker.partition-buffer", "32", "jobs a worker buffers from one partition before pausing that partition"),
    WORKER_MAX_POLL_INTERVAL_MS("worker.max-poll-interval-ms", "300000", "Kafka max.poll.interval.ms; the poll loop never waits on processing, so long jobs do not hit it"),
    METRICS_TENANT_LABELS("metrics.tenant-labels", "50", "tenants with their own 'tenant' label in /metrics (the most active ones); the rest are 'other'"),
    WEBHOOKS_PORT("webhooks.port", "8083", "webhook dispatcher port (/metrics, /health)"),
    WEBHOOKS_ALLOW_HTTP("webhooks.allow-http", "false", "accept http:// webhook URLs (local use only); otherwise https only"),
    WEBHOOKS_ALLOW_LIST("webhooks.allow-list", "", "comma-separated addresses or CIDRs exempt from the SSRF deny list, e.g. 127.0.0.1/32 for the demo and tests; empty in production"),
    WEBHOOKS_RETRY_SCHEDULE("webhooks.retry-schedule", "5s,5m,30m,2h,5h,10h,10h", "delays before each retry after the first attempt (s, m, h units); the delivery is dead-lettered after the last"),
    WEBHOOKS_ENDPOINT_CONCURRENCY("webhooks.endpoint-concurrency", "4", "deliveries in flight at once to one tenant endpoint (per dispatcher)"),
    WEBHOOKS_SECRET_OVERLAP_SECONDS("webhooks.secret-overlap-seconds", "86400", "after a secret rotation, how long deliveries are also signed with the previous secret, seconds"),
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
