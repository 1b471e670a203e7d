package com.fairpix.core.config;

import static com.fairpix.core.config.Constraint.integer;
import static com.fairpix.core.config.Constraint.listOf;
import static com.fairpix.core.config.Constraint.number;
import static com.fairpix.core.config.Constraint.oneOf;
import static com.fairpix.core.config.Constraint.text;
import static com.fairpix.core.config.Constraint.whole;

import com.fairpix.core.pool.Pool;
import java.util.List;

/**
 * Every configuration key of fairpix, declared once with its environment variable, default,
 * constraint and meaning. Precedence: command-line flag, then environment ({@code FAIRPIX_*}),
 * then the properties file ({@code --config} / {@code FAIRPIX_CONFIG}), then the default.
 *
 * <p>Each rule on settings has one home:
 * <ul>
 *   <li>a rule on one value (a type, bounds, a list of names) is the setting's {@link Constraint},
 *       here: {@link FairpixConfig#load} checks it and {@code fairpix config} prints it;</li>
 *   <li>a value only another module can parse (a webhook retry schedule, an allow list) is checked by
 *       that module's {@link SettingsCheck}, so every process with the module refuses it at load;</li>
 *   <li>a rule across settings is its module's config record's: the autoscaler's max ≥ min replicas
 *       ({@code PolicyConfig}, checked on every load by the module's {@link SettingsCheck}); an admin
 *       token at least {@code admin.token-min-length} long ({@code AdminTokens}, which
 *       {@code IngestConfig.validate()} and the autoscaler run when they start).</li>
 * </ul>
 * Two bounds repeat another module's constant, which config cannot see without a package cycle:
 * {@code spec.max-output-side} ≤ {@code JobSpec.MAX_SIDE} and {@code admission.farm-capacity},
 * {@code admission.pool-burst} ≤ {@code Limits.MAX_RATE}, {@code Limits.MAX_BURST}; tests hold them equal.
 */
public enum Setting {
    KAFKA_BOOTSTRAP("kafka.bootstrap", "127.0.0.1:19092", text(), "Kafka bootstrap servers (host:port,...)"),
    JOB_PARTITIONS("kafka.job-partitions", "12", integer().atLeast(0), "partitions of fairpix.jobs.{cpu,gpu} when fairpix creates them (caps a pool's useful replicas)"),
    TENANT_PARTITION_RATE("kafka.tenant-partition-rate", "50", number().atLeast(0), "a tenant's jobs spread over ceil(rate / this) consecutive partitions of its pool's topic (tokens/s of admitted rate per partition); 0 keeps every tenant on one partition"),
    REDIS_URL("redis.url", "redis://127.0.0.1:16379", text(), "Redis: redis://host:port (one server), or a Redis Cluster as redis-cluster://host:port[,host:port...] or a comma-separated list of seed nodes"),
    S3_ENDPOINT("s3.endpoint", "http://127.0.0.1:19000", text(), "S3 endpoint URL (path-style); empty for AWS itself"),
    S3_REGION("s3.region", "us-east-1", text(), "S3 region"),
    S3_ACCESS_KEY("s3.access-key", "fairpix", text(), "S3 access key id"),
    S3_SECRET_KEY("s3.secret-key", "fairpix-secret", text(), "S3 secret access key"),
    S3_BUCKET("s3.bucket", "fairpix", text(), "bucket holding originals and results (created when missing)"),
    S3_HTTP_CLIENT("s3.http-client", "apache", oneOf("apache", "url-connection"), "HTTP client under the S3 SDK: apache (Apache HttpClient 5) or url-connection (the JDK's); docs/overhead.md"),
    BIND_HOST("http.bind-host", "127.0.0.1", text(), "address the HTTP servers listen on"),
    INGEST_PORT("ingest.port", "8080", integer().atLeast(0), "ingest-api port (tenant API, admin API, /metrics, /health)"),
    WORKER_PORT("worker.port", "8081", integer().atLeast(0), "worker port (/metrics, /health)"),
    ADMIN_TOKEN("admin.token", "", text(), "bearer token for /admin/v1; empty disables the admin API"),
    MAX_UPLOAD_BYTES("ingest.max-upload-bytes", "52428800", whole().atLeast(1), "largest upload any tenant may send, in bytes (a tenant's own limit may be lower)"),
    SPEC_MAX_BYTES("spec.max-bytes", "65536", integer().atLeast(256), "largest job spec accepted, bytes of JSON (query parameter or multipart part); over it: 413 spec-too-large, refused while the part is read"),
    SPEC_MAX_VARIANTS("spec.max-variants", "16", integer().between(1, 16), "most variants in one job spec (1 to 16: a job's work and its results held in memory grow with it)"),
    SPEC_MAX_OPERATIONS("spec.max-operations-per-variant", "16", integer().atLeast(1), "most operations in one variant, its encode step included"),
    SPEC_MAX_KEY_LENGTH("spec.max-key-length", "512", integer().between(16, 1024), "longest S3 key a spec may name (watermark key), UTF-8 bytes"),
    SPEC_MAX_OUTPUT_SIDE("spec.max-output-side", "16384", integer().between(1, 16_384), "largest width or height of any image a job makes (resize and crop boxes, and every intermediate), pixels"),
    SPEC_MAX_OUTPUT_PIXELS("spec.max-output-pixels", "50000000", whole().atLeast(1), "most pixels (width x height) of any image a job makes, its intermediates included; a tenant's maxPixels lowers it for that tenant"),
    SPEC_MAX_BLUR_SIGMA("spec.max-blur-sigma", "50", number().between(0.3, 1000), "largest blur sigma, pixels (the kernel grows with it: about 6 sigma wide per pass)"),
    INGEST_MAX_UPLOADS_IN_FLIGHT("ingest.max-uploads-in-flight", "64", integer().atLeast(1), "uploads one ingest node reads at once (all tenants); over it: 503 overloaded, reason uploads-in-flight"),
    INGEST_MAX_TENANT_UPLOADS_IN_FLIGHT("ingest.max-tenant-uploads-in-flight", "8", integer().atLeast(1), "uploads of one tenant one ingest node reads at once; over it: 429 too-many-uploads"),
    INGEST_OVER_SHARE_NICE("ingest.over-share-nice", "10", integer().between(0, 19), "nice value (0-19) of the threads that serve uploads of tenants asking more than their guarantee: a flood's request work yields the CPU to tenants within their share; 0 = served like any other (Linux only)"),
    INGEST_TENANT_REFUSALS_PER_SECOND("ingest.tenant-refusals-per-second", "10", number().above(0).finite(), "refused uploads (400, 413, 415, 422) one ingest node reads per second for one tenant, on average: each costs 1 token + 1 per MiB of body read; with none left: 429 too-many-refusals before the body is read"),
    INGEST_TENANT_REFUSAL_BURST("ingest.tenant-refusal-burst", "100", number().atLeast(1).finite(), "tokens a tenant's refusal budget holds on one ingest node (see ingest.tenant-refusals-per-second); at least 1"),
    INGEST_TENANT_READS_PER_SECOND("ingest.tenant-reads-per-second", "50", number().above(0).finite(), "reads (GET of a job, a page of jobs, a result) one ingest node serves one tenant per second, on average: a job or a result costs 1 token, a page 1 per 20 jobs asked for; with none left: 429 too-many-reads with Retry-After. Its own bucket, apart from admission's submit bucket"),
    INGEST_TENANT_READ_BURST("ingest.tenant-read-burst", "200", number().atLeast(1).finite(), "tokens a tenant's read bucket holds on one ingest node (see ingest.tenant-reads-per-second); at least 1"),
    INGEST_ORPHAN_AFTER_SECONDS("ingest.orphan-after-seconds", "600", whole().atLeast(1), "a job record still QUEUED this long after its message's send to Kafka began and never seen to end (the client got a 503, or the ingest died mid-send) is FAILED enqueue-failed by the ingest's sweep, seconds (docs/overload.md)"),
    INGEST_LIST_MAX_BYTES("ingest.list-max-bytes", "1048576", whole().atLeast(1024), "most bytes of job records one page of GET /v1/jobs carries: the page ends before the job that would pass it, with a next cursor (it always holds one job)"),
    INGEST_REFUSAL_HOLD_MS("ingest.refusal-hold-ms", "1000", whole().between(0, 30_000), "how long a too-many-refusals 429 is held before it is answered, ms (a client retrying at once waits instead of looping; at most 4 a tenant and 256 a node held, beyond that the 429 is at once); 0 = answer at once"),
    INGEST_UPLOAD_DIR("ingest.upload-dir", "", text(), "folder for uploads being read (one temporary file per upload, deleted after the answer); empty = the system temp folder"),
    JOB_RETENTION_SECONDS("jobs.retention-seconds", "604800", whole().atLeast(1), "how long job records stay in Redis, in seconds"),
    USAGE_RETENTION_DAYS("usage.retention-days", "400", integer().between(1, 3660), "how long the per-tenant daily usage roll-ups (docs/usage.md) stay in Redis, in days after the day ends; the admin export and /v1/usage read nothing older"),
    USAGE_HOURLY_RETENTION_DAYS("usage.hourly-retention-days", "14", integer().between(1, 3660), "how long the per-tenant hourly usage roll-ups stay in Redis, in days after the hour's day ends (the jobs-by-state window of /v1/usage reads them)"),
    WORKER_POOL("worker.pool", "cpu", oneOf(Pool.NAMES), "pool a worker consumes: cpu or gpu"),
    WORKER_THREADS("worker.threads", "0", integer().atLeast(0), "processing threads per worker that any tenant may fill; 0 = number of cores"),
    WORKER_FINISHING_THREADS("worker.finishing-threads", "4", integer().atLeast(0), "threads that write a processed job's results to S3, its DONE record and its event, so the processing threads only decode, process and encode; 0 = the processing thread writes its own job's results"),
    WORKER_RESERVED_THREADS("worker.reserved-threads", "2", integer().atLeast(0), "extra processing threads kept for tenants with no job running, so they start at once while another tenant fills the rest; two quiet tenants arriving together each get one (fair scheduler only)"),
    WORKER_SHARED_NICE("worker.shared-nice", "10", integer().between(0, 19), "nice value (0-19) of the processing threads any tenant may fill: their image work yields the CPU to the poll loop, the Kafka client and the reserved threads; 0 = normal priority (Linux only)"),
    WORKER_MAX_ATTEMPTS("worker.max-attempts", "3", integer().atLeast(1), "attempts for a job failing transiently before it is dead-lettered"),
    WORKER_BUFFERED_JOBS("worker.buffered-jobs", "256", integer().atLeast(1), "jobs a worker buffers in memory before pausing consumption (backpressure)"),
    WORKER_MAX_PIXELS("worker.max-pixels", "100000000", whole().atLeast(1), "largest source a worker decodes, pixels (the tenant's maxPixels is checked at ingest)"),
    WORKER_JOB_TIMEOUT_SECONDS("worker.job-timeout-seconds", "30", whole().atLeast(1), "per-job limit on decode + processing, seconds (checked between pipeline steps); a job over it FAILS with reason timeout"),
    WORKER_NATIVE_MEMORY_BYTES("worker.native-memory-bytes", "1073741824", whole().atLeast(64 << 20), "native (off-heap) pixel memory all running jobs of a worker may hold, bytes; jobs wait for their share, so concurrency is sized by pixels"),
    WORKER_PROCESSORS("worker.processors", "in-process", oneOf("process", "in-process"), "where image work (decode, operations, encode) runs: process = in processor processes the worker starts and supervises (one job at a time each, as many as processing threads; a crash, hang or memory blow-up there fails only its own job; sandboxed with bubblewrap where it works; docs/processors.md) or in-process = in the worker's own JVM (a codec crash takes the worker down)"),
    WORKER_PROCESSOR_MEMORY_MB("worker.processor-memory-mb", "2048", integer().between(128, 1_048_576), "memory each processor process may take for one job, MiB: its address space may grow this much past what it holds once started (RLIMIT_AS, through prlimit), and its Java heap is half of it; past it the job FAILS with reason out-of-memory"),
    ADMISSION_FARM_CAPACITY("admission.farm-capacity", "measured", number().between(0, 1_000_000).or("measured"), "capacity C of each pool in tokens/s (cost units/s): measured = the pool's measured service rate (its workers' figures) × admission.capacity-headroom; a number pins it for every pool; 0 = none. With C known, tenants' guarantees (rates) are scaled by min(1, M ÷ Σ guarantees of the tenants with a job accepted into the pool in the last 120 s), M = the measured rate (or the pinned C), and the part of C their guarantees leave idle is lent up to each tenant's ceiling"),
    ADMISSION_CAPACITY_HEADROOM("admission.capacity-headroom", "1.2", number().between(1, 100), "multiple of a pool's measured service rate that admission hands out as its capacity C (>= 1): above 1 the queue grows slowly while demand exceeds capacity, so the autoscaler sees it and measurement error never starves the workers; the backlog bounds (overload.backlog.*) catch the excess"),
    ADMISSION_GUARANTEE_SHARING("admission.guarantee-sharing", "max-min", oneOf("max-min", "proportional"), "how a pool's capacity is shared as guarantees when its active tenants' rates add up to more than it does: max-min = weighted max-min fairness over each tenant's measured demand (tokens asked, admitted or refused, over the last 4 s on all ingest nodes; weights = rates capped at the pool's capacity): a tenant asking less than its share keeps its whole demand and what it leaves goes to the others; proportional = every active tenant's rate scaled by min(1, M / sum of rates)"),
    ADMISSION_POOL_BURST("admission.pool-burst", "0", number().between(0, 1_000_000), "size of each pool's borrowing bucket in tokens; 0 = one second of the pool's capacity"),
    ADMISSION_POOL_LEASE_MILLIS("admission.pool-lease-millis", "50", whole().between(1, 10_000), "lease period P of each pool's borrowing bucket, ms (1..10000): an ingest node takes C x P tokens at a time from the farm-wide bucket and spends them locally, one extra Redis round trip per chunk instead of a farm-wide key in every decision; across N nodes the pool lends at most N x (2 x C x P + 2 x the largest job cost) tokens more than one exact bucket would"),
    ADMISSION_CEILING_FACTOR("admission.ceiling-factor", "2", number().atLeast(1), "a tenant's ceiling rate (guarantee + borrowing) as a multiple of its rate, capped at the farm capacity (HTB ceil)"),
    ADMISSION_COST_MODEL("admission.cost-model", "work", oneOf("work", "megapixels"), "how a job's cost in tokens is worked out: work = its estimated CPU time (one token = 5 ms of one core: decoded pixels by input format, upload bytes, output pixels by encoder and effort; docs/admission.md, cost calibration), and a job that spends more CPU than that by over 30 % is charged the rest afterwards; megapixels = cost-base + cost-per-megapixel x max(1, megapixels) per variant, as before issue 33"),
    ADMISSION_COST_BASE("admission.cost-base", "0", number().atLeast(0), "tokens every job costs on top of its work or megapixels, e.g. 0.5"),
    ADMISSION_COST_PER_MEGAPIXEL("admission.cost-per-megapixel", "1", number().atLeast(0), "with admission.cost-model=megapixels: tokens per decoded megapixel per variant (a job's cost: base + this x max(1, megapixels) x variants)"),
    ADMISSION_LEASE_TTL_SECONDS("admission.lease-ttl-seconds", "900", whole().atLeast(1), "how long a job holds a concurrency slot unless the worker releases it earlier, seconds (a crashed worker's slot returns after this)"),
    ADMISSION_REDIS_DOWN("admission.redis-down", "open", oneOf("open", "closed"), "when Redis is unreachable: open (admit on a local per-node budget of each tenant's rate / nodes) or closed (503 with Retry-After)"),
    ADMISSION_NODES("admission.nodes", "1", integer().atLeast(1), "ingest nodes sharing the farm; the local fail-open budget of a tenant is its rate and burst divided by this"),
    ADMISSION_SHADOW("admission.shadow", "", listOf(List.of("rate", "daily-quota", "concurrency")).orEmpty(), "policies decided and counted but never enforced, comma-separated: rate, daily-quota, concurrency"),
    ADMISSION_DAY_OFFSET_SECONDS("admission.day-offset-seconds", "0", whole().between(0, 86_399), "start of the daily-quota day after 00:00 UTC, seconds (0 = UTC midnight)"),
    WORKER_SCHEDULER("worker.scheduler", "fair", oneOf("fair", "fifo"), "dispatch order across tenants: fair (start-time fair queueing by cost and weight) or fifo (baseline)"),
    WORKER_PARTITION_BUFFER("worker.partition-buffer", "32", integer().atLeast(1), "jobs a worker buffers from one partition before pausing that partition (worker.read-ahead=partition only)"),
    WORKER_READ_AHEAD("worker.read-ahead", "tenant", oneOf("tenant", "partition"), "how a worker bounds what it reads ahead: tenant (read past a tenant whose buffer is full and fetch its jobs again when it has room; no tenant stalls a partition) or partition (pause a partition whose buffer is full, the old behaviour, for benchmarks)"),
    WORKER_TENANT_BUFFER("worker.tenant-buffer", "16", integer().atLeast(1), "jobs of one tenant a worker holds in memory; past it the tenant's further jobs are read past and fetched again later (worker.read-ahead=tenant)"),
    WORKER_TENANT_BUFFER_BYTES("worker.tenant-buffer-bytes", "4194304", whole().atLeast(65_536), "bytes of job messages of one tenant a worker holds in memory (worker.read-ahead=tenant)"),
    WORKER_BUFFERED_BYTES("worker.buffered-bytes", "33554432", whole().atLeast(65_536), "bytes of job messages a worker holds in memory in all; past it further jobs are read past and fetched again later"),
    WORKER_MAX_POLL_INTERVAL_MS("worker.max-poll-interval-ms", "300000", integer().atLeast(0), "Kafka max.poll.interval.ms; the poll loop never waits on processing, so long jobs do not hit it"),
    BREAKER_FAILURE_RATE("overload.breaker.failure-rate", "50", number().above(0).atMost(100), "percent of failed calls (in the breaker's window) that opens a dependency's circuit breaker"),
    BREAKER_SLOW_CALL_RATE("overload.breaker.slow-call-rate", "80", number().above(0).atMost(100), "percent of slow calls (in the window) that opens a dependency's circuit breaker"),
    BREAKER_SLOW_CALL_MS("overload.breaker.slow-call-ms", "1000", whole().atLeast(1), "a dependency call slower than this counts as slow, milliseconds"),
    BREAKER_SLOW_CALL_BYTES_PER_SECOND("overload.breaker.slow-call-bytes-per-second", "8388608", whole().atLeast(1),
            "throughput an object store call is allowed: a call moving n bytes counts as slow only past slow-call-ms + n / this (one tenant's big objects are not an outage), bytes per second"),
    BREAKER_WINDOW_CALLS("overload.breaker.window-calls", "20", integer().atLeast(1), "calls in a breaker's count-based sliding window"),
    BREAKER_MINIMUM_CALLS("overload.breaker.minimum-calls", "5", integer().atLeast(1), "calls a breaker needs in its window before it may open"),
    BREAKER_OPEN_MS("overload.breaker.open-ms", "5000", whole().atLeast(1), "how long an open breaker rejects every call before it lets half-open probes through, milliseconds"),
    BREAKER_PROBES("overload.breaker.half-open-probes", "10", integer().atLeast(1), "probe calls a half-open breaker lets through before it decides"),
    BREAKER_PROBE_SUCCESS("overload.breaker.probe-success", "95", number().above(0).atMost(100), "percent of half-open probes that must succeed for the breaker to close (else it opens again)"),
    KAFKA_PRODUCE_TIMEOUT_MS("overload.kafka-produce-timeout-ms", "2000", whole().atLeast(1), "longest ingest waits for Kafka's acknowledgement of a job message before answering 503, milliseconds"),
    RAMP_START("overload.ramp.start", "0.1", number().above(0).atMost(1), "admission level right after a breaker closes, as a fraction of normal capacity (0 < x <= 1)"),
    RAMP_FACTOR("overload.ramp.factor", "1.2", number().above(1), "the ramp's multiplier per step (> 1)"),
    RAMP_STEP_MS("overload.ramp.step-ms", "30000", whole().atLeast(1), "milliseconds between two ramp steps"),
    RAMP_CAPACITY("overload.ramp.capacity", "0", number().atLeast(0), "normal admission capacity of the farm in tokens/s that the ramp scales; 0 = admission's capacity (pinned admission.farm-capacity, else the pools' measured capacities summed), and with none known the ramp admits that fraction of requests"),
    BACKLOG_JOB_SECONDS("overload.backlog.job-seconds", "0", number().atLeast(0), "seconds of the pool's time per queued job, converting consumer lag (messages) into backlog (queue time, seconds); 0 = measured: the mean cost of recent jobs / the pool's measured capacity (the last measured value while either is missing; 1 s before any)"),
    BACKLOG_SOFT_SECONDS("overload.backlog.soft-seconds", "60", number().atLeast(0), "backlog of a pool as queue time (seconds its workers need to drain it), above which ingest sheds traffic above tenants' guarantees (borrowed); 0 = off"),
    BACKLOG_HARD_SECONDS("overload.backlog.hard-seconds", "300", number().atLeast(0), "backlog of a pool as queue time (seconds its workers need to drain it), above which ingest sheds everything but the reserved share; 0 = off"),
    BACKLOG_RESERVED_SHARE("overload.backlog.reserved-share", "0.1", number().between(0, 1), "share of within-guarantee requests still admitted above the hard bound (0..1)"),
    BACKLOG_READ_MS("overload.backlog.read-ms", "1000", whole().atLeast(1), "milliseconds between two readings of the pools' consumer lag"),
    NODE_ID("overload.node-id", "", text(), "this ingest node's name in the farm view (fairpix status); empty = host:port"),
    METRICS_TOKEN("metrics.token", "", text(), "bearer token a scrape of /metrics must send; empty = none (then keep /metrics off public networks: it names tenants)"),
    METRICS_PORT("metrics.port", "-1", integer().between(-1, 65_535), "-1 = /metrics on the service's own port; otherwise ingest serves /metrics only on this separate port (0 = any free one), bound to http.bind-host"),
    ADMIN_TOKEN_MIN_LENGTH("admin.token-min-length", "24", integer().atLeast(1), "shortest admin token the ingest-api accepts at start-up, characters; known placeholders (change-me, admin, secret, ...) are refused whatever their length"),
    METRICS_TENANT_LABELS("metrics.tenant-labels", "50", integer().atLeast(0), "tenants with their own 'tenant' label in /metrics (the most active ones); the rest are 'other'"),
    WEBHOOKS_PORT("webhooks.port", "8083", integer(), "webhook dispatcher port (/metrics, /health)"),
    WEBHOOKS_ALLOW_HTTP("webhooks.allow-http", "false", oneOf("true", "false"), "accept http:// webhook URLs (local use only); otherwise https only"),
    WEBHOOKS_ALLOW_LIST("webhooks.allow-list", "", text(), "comma-separated addresses or CIDRs exempt from the SSRF deny list, e.g. 127.0.0.1/32 for the demo and tests; empty in production"),
    WEBHOOKS_RETRY_SCHEDULE("webhooks.retry-schedule", "5s,5m,30m,2h,5h,10h,10h", text(), "delays before each retry after the first attempt (s, m, h units); the delivery is dead-lettered after the last"),
    WEBHOOKS_ENDPOINT_CONCURRENCY("webhooks.endpoint-concurrency", "4", integer().atLeast(1), "deliveries in flight at once to one tenant endpoint (per dispatcher)"),
    WEBHOOKS_TENANT_CONCURRENCY("webhooks.tenant-concurrency", "16", integer().atLeast(1), "deliveries in flight at once for one tenant over all its endpoints (per dispatcher)"),
    WEBHOOKS_MAX_PENDING_PER_TENANT("webhooks.max-pending-per-tenant", "10000", integer().atLeast(1), "deliveries one tenant may have waiting for an attempt (due or retrying); past it, a new event's delivery is dead-lettered at once with the reason (replay it with fairpix webhooks replay-failed)"),
    WEBHOOKS_MAX_IN_FLIGHT("webhooks.max-in-flight", "256", integer().atLeast(1), "deliveries in flight at once in one dispatcher (all tenants); also its HTTP connection pool's size"),
    WEBHOOKS_SECRET_OVERLAP_SECONDS("webhooks.secret-overlap-seconds", "86400", whole().atLeast(0), "after a secret rotation, how long deliveries are also signed with the previous secret, seconds"),
    AUTOSCALER_PORT("autoscaler.port", "8082", integer().atLeast(0), "autoscaler port (admin API /admin/v1/pools, /metrics, /health)"),
    AUTOSCALER_ACTUATOR("autoscaler.actuator", "local", oneOf("local", "kubernetes", "dry-run"), "how the autoscaler changes replicas: local (worker processes on this machine), kubernetes (Deployment replicas) or dry-run (log only)"),
    AUTOSCALER_POOLS("autoscaler.pools", "cpu,gpu", listOf(Pool.NAMES), "pools the autoscaler manages, comma-separated"),
    AUTOSCALER_INTERVAL_SECONDS("autoscaler.interval-seconds", "5", integer().atLeast(1), "evaluation period: seconds between signal readings and decisions"),
    AUTOSCALER_MIN_REPLICAS("autoscaler.min-replicas", "1", integer().atLeast(0), "fewest workers per pool"),
    AUTOSCALER_MAX_REPLICAS("autoscaler.max-replicas", "8", integer().atLeast(0), "most workers per pool (also capped by the partitions with lag)"),
    AUTOSCALER_TARGET_BACKLOG("autoscaler.target-backlog-per-replica", "100", number().above(0), "backlog one replica is expected to carry, in cost units; desired = ceil(backlog / this)"),
    AUTOSCALER_COST_PER_JOB("autoscaler.cost-per-job", "1", number().above(0), "cost units per queued job, converting consumer lag (messages) into backlog (cost units), used only while ingest accepted no job for the pool in the last minute (otherwise the measured mean cost of those jobs is)"),
    AUTOSCALER_QPS_THRESHOLD("autoscaler.qps-threshold", "80", number().atLeast(0), "ingest submissions/s per pool that, sustained, trigger a scale-out step"),
    AUTOSCALER_QPS_SUSTAIN_SECONDS("autoscaler.qps-sustain-seconds", "60", integer().atLeast(0), "seconds the QPS threshold must hold before it triggers"),
    AUTOSCALER_BACKLOG_THRESHOLD("autoscaler.backlog-threshold", "200", number().atLeast(0), "backlog (cost units) above which growth triggers a scale-out step"),
    AUTOSCALER_GROWTH_THRESHOLD("autoscaler.growth-threshold", "50", number().atLeast(0), "backlog growth in cost units/s that, with the backlog threshold, triggers a scale-out step"),
    AUTOSCALER_GROWTH_SUSTAIN_SECONDS("autoscaler.growth-sustain-seconds", "30", integer().atLeast(0), "seconds backlog and growth must hold before they trigger"),
    AUTOSCALER_STEP_CPU("autoscaler.step-cpu", "2", integer().atLeast(1), "most replicas added to the cpu pool per step period"),
    AUTOSCALER_STEP_GPU("autoscaler.step-gpu", "1", integer().atLeast(1), "most replicas added to the gpu pool per step period"),
    AUTOSCALER_STEP_PERIOD_SECONDS("autoscaler.step-period-seconds", "15", integer().atLeast(0), "seconds between two scale-out steps of a pool"),
    AUTOSCALER_STABILIZATION_SECONDS("autoscaler.stabilization-seconds", "300", integer().atLeast(0), "scale-in stabilization window: the highest recommendation of the last this-many seconds wins"),
    AUTOSCALER_COOLDOWN_SECONDS("autoscaler.cooldown-seconds", "60", integer().atLeast(0), "seconds after any scaling action before a scale-in"),
    AUTOSCALER_LOCAL_WORKER_THREADS("autoscaler.local.worker-threads", "1", integer().atLeast(0), "processing threads of each worker process the local actuator starts"),
    AUTOSCALER_LOCAL_LOG_DIR("autoscaler.local.log-dir", "", text(), "folder for the local actuator's worker logs; empty = the system temp folder"),
    AUTOSCALER_K8S_NAMESPACE("autoscaler.kubernetes.namespace", "fairpix", text(), "namespace of the worker Deployments"),
    AUTOSCALER_K8S_DEPLOYMENT("autoscaler.kubernetes.deployment", "fairpix-worker-{pool}", text(), "worker Deployment name; {pool} is replaced by the pool"),
    AUTOSCALER_URL("cli.autoscaler-url", "http://127.0.0.1:8082", text(), "base URL of the autoscaler the CLI talks to (fairpix scale, fairpix top); --url wins, empty = the default"),
    URL("cli.url", "http://127.0.0.1:8080", text(), "base URL of the ingest-api the CLI talks to; --url wins, empty = the default");

    private final String key;
    private final String defaultValue;
    private final Constraint constraint;
    private final String doc;

    Setting(String key, String defaultValue, Constraint constraint, String doc) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.constraint = constraint;
        this.doc = doc;
    }

    /** The properties-file key, e.g. {@code kafka.bootstrap}. */
    public String key() { return key; }

    /** The environment variable, e.g. {@code FAIRPIX_KAFKA_BOOTSTRAP}. */
    public String env() { return "FAIRPIX_" + name(); }

    public String defaultValue() { return defaultValue; }

    /** What values this setting accepts; every load checks them. */
    public Constraint constraint() { return constraint; }

    public String doc() { return doc; }
}
