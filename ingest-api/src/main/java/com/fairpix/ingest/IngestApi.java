package com.fairpix.ingest;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.http.ServiceBootstrap;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.kafka.KafkaSupport;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.storage.ObjectStore;
import com.fairpix.core.storage.S3ObjectStore;
import com.fairpix.core.tenant.TenantDirectory;
import com.fairpix.core.tenant.TenantStore;
import com.fairpix.core.time.SystemTime;
import com.fairpix.ingest.admin.TenantAdmin;
import com.fairpix.ingest.admission.Admission;
import com.fairpix.ingest.admission.AdmissionConfig;
import com.fairpix.ingest.admission.Admissions;
import com.fairpix.ingest.auth.Authenticator;
import com.fairpix.ingest.enqueue.IdempotencyKeys;
import com.fairpix.ingest.enqueue.JobQueue;
import com.fairpix.ingest.enqueue.JobSubmitter;
import com.fairpix.ingest.enqueue.PendingSends;
import com.fairpix.ingest.enqueue.SubmissionCounts;
import com.fairpix.ingest.http.AdminJobsController;
import com.fairpix.ingest.http.ApiKeysController;
import com.fairpix.ingest.http.JobController;
import com.fairpix.ingest.http.Routes;
import com.fairpix.ingest.http.StatusController;
import com.fairpix.ingest.http.TenantsController;
import com.fairpix.ingest.http.UsageController;
import com.fairpix.ingest.http.WebhooksController;
import com.fairpix.ingest.overload.OverloadConfig;
import com.fairpix.ingest.overload.OverloadGuard;
import com.fairpix.ingest.overload.OverloadGuards;
import com.fairpix.core.resilience.Breakers;
import com.fairpix.core.resilience.Dependency;
import com.fairpix.core.resilience.GuardedObjectStore;
import com.fairpix.webhooks.DeliveryStore;
import com.fairpix.webhooks.WebhookAdmin;
import com.fairpix.core.job.SpecLimits;
import com.fairpix.ingest.http.UploadReader;
import com.fairpix.ingest.http.RefusalBudget;
import com.fairpix.ingest.http.ReadBudget;
import com.fairpix.ingest.http.UploadSlots;
import com.fairpix.ingest.http.OverShareLane;
import com.fairpix.ingest.capacity.FarmCapacity;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import redis.clients.jedis.UnifiedJedis;

/** The ingest-api service: tenant API, admin API, /metrics and /health on one port. */
public final class IngestApi implements AutoCloseable {
    private final ServiceBootstrap.Running http;
    private final TenantDirectory directory;
    private final OverloadGuard overload;
    private final RefusalBudget refusals;

    private IngestApi(ServiceBootstrap.Running http, TenantDirectory directory, OverloadGuard overload, RefusalBudget refusals) {
        this.http = http;
        this.directory = directory;
        this.overload = overload;
        this.refusals = refusals;
    }

    /**
     * Connects to Redis, S3 and Kafka (creating the bucket and topics when missing) and starts
     * listening.
     *
     * @throws IllegalStateException when a dependency cannot be reached at start
     */
    public static IngestApi start(FairpixConfig config) {
        // Read once; a guessable admin token is refused before anything is started.
        IngestConfig settings = IngestConfig.from(config);
        AdmissionConfig admissionConfig = settings.admission();
        com.fairpix.webhooks.DispatcherConfig webhooks = settings.webhooks();
        UnifiedJedis redis = Redis.connect(config.get(Setting.REDIS_URL));
        ObjectStore objects = S3ObjectStore.from(config);
        objects.ensureBucket();
        KafkaSupport.ensureTopics(config.get(Setting.KAFKA_BOOTSTRAP), config.integer(Setting.JOB_PARTITIONS));
        // The producer stops trying a job message when the submission stops waiting for it
        // (overload.kafka-produce-timeout-ms) and answers 503: no message of a refused job is written
        // seconds later, bar one already in flight, which the worker skips as FAILED (docs/kafka.md).
        KafkaProducer<String, byte[]> producer = KafkaSupport.producer(config.get(Setting.KAFKA_BOOTSTRAP), "fairpix-ingest",
                Duration.ofMillis(config.longValue(Setting.KAFKA_PRODUCE_TIMEOUT_MS)));

        ServiceBootstrap service = ServiceBootstrap.create(IngestApi.class, io.micrometer.core.instrument.Tags.empty());
        PrometheusMeterRegistry registry = service.registry();
        Clock clock = SystemTime.clock();
        LongSupplier nanos = SystemTime.nanos();
        TenantStore tenants = new TenantStore(redis, clock);
        JobStore jobs = JobStore.redis(redis, settings.jobRetention().toSeconds());
        TenantDirectory directory = new TenantDirectory(tenants, Redis.subscriber(config.get(Setting.REDIS_URL)), 250).start();
        Authenticator auth = new Authenticator(directory, settings.adminToken());
        com.fairpix.core.metrics.TenantTags tenantTags = new com.fairpix.core.metrics.TenantTags(registry, settings.tenantLabels(), nanos);
        java.util.List<String> pools = com.fairpix.core.pool.Pool.NAMES;
        FarmCapacity capacity = new FarmCapacity(redis, directory::byId, pools, admissionConfig.farmCapacity(),
                settings.capacityHeadroom(), settings.guaranteeSharing(), clock).bindTo(registry).start();
        // Admission's scripts are not idempotent (a re-run spends tokens and quota twice): on a cluster
        // they go through a client that never re-sends a command after a timeout; an outage then
        // meets admission.redis-down at once.
        UnifiedJedis admissionRedis = Redis.connectWithoutRetries(config.get(Setting.REDIS_URL));
        Admission admission = Admissions.redis(admissionRedis, admissionConfig, capacity, registry, tenantTags, clock, nanos);
        Breakers breakers = Breakers.of(settings.breakers(), nanos).bindTo(registry);
        ObjectStore guardedObjects = new GuardedObjectStore(objects, breakers.get(Dependency.S3), settings.breakers().slowCallBytesPerSecond(), nanos);
        String host = config.get(Setting.BIND_HOST);
        com.fairpix.webhooks.UrlGuard webhookGuard = webhooks.guard(com.fairpix.webhooks.UrlGuard.SYSTEM_DNS);
        WebhookAdmin webhookAdmin = new WebhookAdmin(DeliveryStore.redis(redis, webhooks.retention()), tenants::update, webhookGuard, webhooks.secretOverlap(), clock);
        TenantAdmin tenantAdmin = new TenantAdmin(tenants, webhookAdmin, new com.fairpix.core.tenant.TenantPurge(redis)::purge);

        service.ready("redis", () -> com.fairpix.core.redis.Redis.ready(redis));
        service.ready("s3", objects::ping);
        SpecLimits specLimits = settings.spec();
        // Uploads never pass through Javalin's body buffers (JobController streams them to a file
        // within the tenant's limit); this caps only the JSON bodies of the admin API.
        service.metrics(settings.metrics()).maxRequestSize(1024 * 1024);
        int port = settings.port();
        // Default node id host:port; with port 0 (tests) the port is not known yet, so a random suffix.
        String defaultNode = host + ":" + (port != 0 ? Integer.toString(port) : "0-" + java.util.UUID.randomUUID().toString().substring(0, 6));
        // The ramp scales the farm's capacity: a pinned one (once, though each pool gets it), else the
        // pools' measured capacities as admission hands them out.
        java.util.function.DoubleSupplier rampCapacity = admissionConfig.farmCapacity() > 0 ? admissionConfig::farmCapacity
                : () -> pools.stream().mapToDouble(p -> capacity.of(p).capacity()).sum();
        OverloadGuard overload = OverloadGuards.start(OverloadConfig.from(config, defaultNode), rampCapacity, pool -> capacity.view(pool).lastMeasured(), breakers, redis,
                Redis.subscriber(config.get(Setting.REDIS_URL)), config.get(Setting.KAFKA_BOOTSTRAP), registry, clock, nanos);
        JobSubmitter submitter = new JobSubmitter(guardedObjects, jobs, IdempotencyKeys.redis(redis), JobQueue.kafka(producer), SubmissionCounts.redis(redis),
                registry, tenantTags, clock, admission, admissionConfig,
                overload, webhookGuard, new com.fairpix.core.kafka.TenantPlacement(settings.tenantPartitionRate())).specLimits(specLimits)
                .reconcileWith(PendingSends.redis(redis), java.time.Duration.ofSeconds(config.longValue(Setting.INGEST_ORPHAN_AFTER_SECONDS)));
        // The orphan sweep (docs/overload.md): records left QUEUED by a send that failed unmarked.
        java.util.concurrent.ScheduledExecutorService sweeper = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().daemon().name("fairpix-orphan-sweep").unstarted(r));
        long sweepEvery = Math.max(1, Math.min(30, config.longValue(Setting.INGEST_ORPHAN_AFTER_SECONDS) / 4));
        sweeper.scheduleWithFixedDelay(submitter::reconcileOrphans, sweepEvery, sweepEvery, java.util.concurrent.TimeUnit.SECONDS);
        // ingest.max-upload-bytes caps every tenant's maxUploadBytes here, as the worker caps what it reads and writes.
        UploadReader uploads = new UploadReader(settings.uploadDir(), clock, config.longValue(Setting.MAX_UPLOAD_BYTES));
        UploadSlots slots = new UploadSlots(settings.maxUploadsInFlight(), settings.maxTenantUploadsInFlight());
        OverShareLane lane = new OverShareLane(capacity, config.integer(Setting.INGEST_OVER_SHARE_NICE), settings.maxUploadsInFlight(), registry);
        RefusalBudget refusals = new RefusalBudget(settings.refusalsPerSecond(), settings.refusalBurst(), settings.refusalHold(), nanos, Thread::sleep);
        service.openApi("/openapi/ingest.yaml")
                .routes(Routes.all(new JobController(auth, submitter, jobs, guardedObjects, clock, admission, uploads, slots, lane,
                                refusals, new ReadBudget(config.decimal(Setting.INGEST_TENANT_READS_PER_SECOND),
                                        config.decimal(Setting.INGEST_TENANT_READ_BURST), nanos),
                                config.longValue(Setting.INGEST_LIST_MAX_BYTES), specLimits.maxSpecBytes(), registry),
                        new TenantsController(auth, tenantAdmin), new ApiKeysController(auth, tenantAdmin), new AdminJobsController(auth, jobs),
                        new WebhooksController(auth, tenantAdmin, webhookAdmin),
                        new StatusController(auth, overload, capacity, pools),
                        new UsageController(auth, admission, com.fairpix.core.usage.UsageLedger.redis(redis, com.fairpix.core.usage.UsageRetention.from(config)), clock)))
                .stopFirst(sweeper::shutdownNow, capacity, overload, directory, lane)
                .closeLast(producer, objects, admissionRedis, redis);
        return new IngestApi(service.start(host, port, "ingest-api started"), directory, overload, refusals);
    }

    /** Every route this service serves, "METHOD /path" (for the test that holds them to the OpenAPI document). */
    public java.util.List<String> routes() {
        return http.routes();
    }

    /** The port actually bound (useful with port 0). */
    public int port() {
        return http.port();
    }

    /** The port of the separate /metrics listener; -1 when /metrics is on {@link #port()}. */
    public int metricsPort() {
        return http.metricsPort();
    }

    /** This node's overload protection (breakers, ramp, shedding). */
    public OverloadGuard overload() {
        return overload;
    }

    /** This node's refusal budget (tests, diagnostics). */
    public RefusalBudget refusals() {
        return refusals;
    }

    /** This node's tenant cache (tests and heap measurements). */
    public TenantDirectory tenants() {
        return directory;
    }

    /** Stops the capacity readings, the overload guard and the tenant cache, then HTTP, then closes the clients. */
    @Override
    public void close() {
        http.close();
    }
}
