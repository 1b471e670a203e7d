package com.fairpix.worker;

import com.fairpix.core.admission.AdmissionLeases;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.http.ServiceBootstrap;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.kafka.KafkaSupport;
import com.fairpix.core.kafka.Topics;
import com.fairpix.core.metrics.MetricNames;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.storage.ObjectStore;
import com.fairpix.core.storage.S3ObjectStore;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantDirectory;
import com.fairpix.core.tenant.TenantState;
import com.fairpix.core.tenant.TenantStore;
import com.fairpix.core.time.SystemTime;
import com.fairpix.worker.consume.HeldJobs;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import com.fairpix.worker.consume.CatchUp;
import com.fairpix.worker.consume.Delivery;
import com.fairpix.worker.consume.JobConsumer;
import com.fairpix.worker.notify.EventPublisher;
import com.fairpix.worker.process.ImagePipeline;
import com.fairpix.worker.process.NativeMemoryBudget;
import com.fairpix.worker.run.JobRunner;
import com.fairpix.worker.run.ProcessingThreads;
import com.fairpix.core.metrics.TenantTags;
import com.fairpix.worker.schedule.FairnessMeter;
import com.fairpix.worker.schedule.JobScheduler;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import com.fairpix.worker.store.ResultWriter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * The worker service of one pool: consumes {@code fairpix.jobs.{pool}} as a member of the pool's
 * consumer group, schedules jobs fairly across tenants, processes them with OpenCV on the CPU, and
 * serves /metrics and /health. The GPU pool runs the same CPU backend today: the pool is a queue
 * and a group, not an accelerator.
 */
public final class Worker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Worker.class);

    private final JobConsumer consumer;
    private final ServiceBootstrap.Running service;

    private Worker(JobConsumer consumer, ServiceBootstrap.Running service) {
        this.consumer = consumer;
        this.service = service;
    }

    /**
     * Connects to Redis, S3 and Kafka and starts consuming.
     *
     * @param httpPort port for /metrics and /health; negative to run without HTTP
     */
    public static Worker start(FairpixConfig config, int httpPort) {
        WorkerConfig settings = WorkerConfig.from(config);
        String pool = settings.pool().wire();
        UnifiedJedis redis = Redis.connect(config.get(Setting.REDIS_URL));
        ObjectStore objects = S3ObjectStore.from(config);
        objects.ensureBucket();
        String bootstrap = config.get(Setting.KAFKA_BOOTSTRAP);
        KafkaSupport.ensureTopics(bootstrap, config.integer(Setting.JOB_PARTITIONS));
        String clientId = "fairpix-worker-" + pool + "-" + ManagementFactory.getRuntimeMXBean().getPid();
        KafkaProducer<String, byte[]> producer = KafkaSupport.producer(bootstrap, clientId);

        // A worker serves one pool: every meter it makes says which (dashboards sum by pool).
        ServiceBootstrap service = ServiceBootstrap.create(Worker.class, io.micrometer.core.instrument.Tags.of("pool", pool));
        PrometheusMeterRegistry registry = service.registry();
        Clock clock = SystemTime.clock();
        LongSupplier nanos = SystemTime.nanos();
        JobStore jobs = JobStore.redis(redis, settings.jobRetention().toSeconds());
        TenantStore tenants = new TenantStore(redis, clock);
        EventPublisher events = EventPublisher.kafka(producer);
        NativeMemoryBudget memory = new NativeMemoryBudget(settings.nativeMemoryBytes());
        Gauge.builder(MetricNames.NATIVE_MEMORY_RESERVED, memory::reservedBytes).tag("pool", pool).register(registry);
        int slots = settings.consume().sharedThreads() + settings.consume().reservedThreads();
        // In processes (the default), each processor has its own pixel budget and memory limit; the
        // worker's budget gauge then stays 0. In-process, the jobs share the worker's budget.
        com.fairpix.worker.process.ImageProcessor pipeline;
        java.util.concurrent.CompletableFuture<Void> processorsStarted = java.util.concurrent.CompletableFuture.completedFuture(null);
        if (settings.processors() == WorkerConfig.Processors.PROCESS) {
            var processes = com.fairpix.worker.processor.ProcessorProcesses.start(slots, settings.maxPixels(), settings.jobTimeout(),
                    settings.nativeMemoryBytes(), settings.processorMemoryMb(), true);
            // One per processing thread, started now, while the rest of the worker connects: the
            // consumer joins its group (and gets partitions) only once they have said hello.
            processorsStarted = processes.prestart(processes.threadNices(settings.consume().sharedThreads(), settings.consume().sharedNice(),
                    settings.consume().reservedThreads()));
            pipeline = processes;
        } else {
            // No warm-up here (processors have one): in a JVM that runs several workers (the tests'),
            // a warm-up per start was the new native work when that JVM once aborted on a corrupted
            // malloc heap (ci-run14, cause not found); a cold first job is covered by TrueUp's slack.
            pipeline = new ImagePipeline(settings.maxPixels(), memory, settings.jobTimeout(), nanos);
        }
        // S3 behind a circuit breaker: while it is open the worker takes no job and pauses its
        // partitions, so an outage neither fails jobs nor spends their attempts (docs/overload.md).
        com.fairpix.core.resilience.Breakers breakers = com.fairpix.core.resilience.Breakers.of(
                settings.breakers(), nanos).bindTo(registry);
        io.github.resilience4j.circuitbreaker.CircuitBreaker s3Breaker = breakers.get(com.fairpix.core.resilience.Dependency.S3);
        java.util.function.BooleanSupplier s3Down = () -> open(s3Breaker);
        // Redis (job records) and Kafka (events) behind theirs too (issue 34): while any of the three
        // is open, the same pause; a job an outage interrupts is parked, its attempts untouched.
        io.github.resilience4j.circuitbreaker.CircuitBreaker redisBreaker = breakers.get(com.fairpix.core.resilience.Dependency.REDIS);
        io.github.resilience4j.circuitbreaker.CircuitBreaker kafkaBreaker = breakers.get(com.fairpix.core.resilience.Dependency.KAFKA);
        java.util.function.BooleanSupplier dependencyDown = () -> open(s3Breaker) || open(redisBreaker) || open(kafkaBreaker);
        jobs = new com.fairpix.core.resilience.GuardedJobStore(jobs, redisBreaker);
        events = new com.fairpix.worker.notify.GuardedEventPublisher(events, kafkaBreaker);
        ResultWriter results = new ResultWriter(new com.fairpix.core.resilience.GuardedObjectStore(objects, s3Breaker,
                settings.breakers().slowCallBytesPerSecond(), nanos), settings.maxResultBytes());
        // One per registry: each re-rank removes the meters of tenants it dropped, and a second
        // instance, ranking by other events, would remove series the first still labels.
        TenantTags tenantTags = new TenantTags(registry, settings.tenantLabels(), nanos);
        JobRunner runner = new JobRunner(jobs, results, pipeline, events, registry, tenantTags, clock,
                settings.maxAttempts(), Duration.ofMillis(500), new AdmissionLeases(redis)::release);

        int finishingThreads = settings.finishingThreads();
        java.util.concurrent.ExecutorService finishers = null;
        if (finishingThreads > 0) {
            java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
            // The finishing threads write the shared slots' jobs (a reserved slot's job writes its own), so
            // they run at the shared threads' background priority: set here, since a thread otherwise
            // inherits the nice value of whichever thread first submitted to the pool.
            int nice = settings.consume().sharedNice();
            finishers = Executors.newFixedThreadPool(finishingThreads, r -> Thread.ofPlatform().daemon().name("fairpix-finish-" + n.getAndIncrement()).unstarted(() -> {
                if (nice > 0) {
                    try {
                        com.fairpix.core.os.CpuPriority.lowerCurrentThread(nice);
                    } catch (Throwable e) { // a missing native part must not cost the worker its thread
                        log.warn("finishing thread keeps its CPU priority: {}", e.toString());
                    }
                }
                r.run();
            }));
            // Each finishing thread has one job's writes running and one waiting: enough to keep the
            // processing threads busy, and a bound on the encoded results held in memory.
            runner.finishOn(finishers, 2 * finishingThreads);
        }
        TenantDirectory directory = new TenantDirectory(tenants, Redis.subscriber(config.get(Setting.REDIS_URL)), 250).start();
        java.util.function.ToDoubleFunction<String> weights = tenant -> lookup(directory, tenant).map(Tenant::weight).orElse(1.0);
        int threads = settings.consume().sharedThreads();
        int reservedThreads = settings.consume().reservedThreads();
        JobScheduler<Delivery> scheduler = settings.scheduler().create(weights,
                tenant -> lookup(directory, tenant).map(Tenant::maxConcurrentJobs).orElse(Integer.MAX_VALUE), threads, reservedThreads);
        HeldJobs heldJobs = new HeldJobs(redis, producer, clientId);
        java.util.function.Predicate<String> held = tenant -> lookup(directory, tenant).map(t -> t.state() == TenantState.SUSPENDED).orElse(false);
        ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("fairpix-held").unstarted(r));
        directory.onChange(t -> {
            if (t.state() == TenantState.ACTIVE) housekeeping.execute(() -> heldJobs.release(t.id()));
        });
        // Heals a missed activation: re-queue parked jobs of any tenant that is active again.
        housekeeping.scheduleWithFixedDelay(() -> {
            try {
                for (String t : heldJobs.tenants()) {
                    if (lookup(directory, t).map(x -> x.state() == TenantState.ACTIVE).orElse(false)) heldJobs.release(t);
                }
            } catch (RuntimeException e) {
                log.debug("held-jobs sweep failed: {}", e.toString());
            }
        }, 5, 5, TimeUnit.SECONDS);
        FairnessMeter fairness = new FairnessMeter(weights);
        com.fairpix.worker.capacity.ServiceRate serviceRate = new com.fairpix.worker.capacity.ServiceRate();
        com.fairpix.worker.capacity.SaturatedThroughput saturated = new com.fairpix.worker.capacity.SaturatedThroughput(nanos.getAsLong());
        ProcessingThreads.Listener listener = (tenant, cost, seconds) -> {
            fairness.served(tenant, cost);
            serviceRate.observe(cost, seconds);
            saturated.completed(cost);
            registry.counter(MetricNames.TENANT_SERVICE, "pool", pool, "tenant", tenantTags.tag(tenant)).increment(cost);
        };
        housekeeping.scheduleAtFixedRate(() -> fairness.sample(scheduler.backlogged()), 1, 1, TimeUnit.SECONDS);
        housekeeping.scheduleAtFixedRate(fairness::closeWindow, 60, 60, TimeUnit.SECONDS);
        // The pool's measured capacity (docs/overload.md): this replica's rate, published every 5 s.
        com.fairpix.core.capacity.PoolCapacity capacity = new com.fairpix.core.capacity.PoolCapacity(redis);
        int capacityThreads = threads;
        // One field per replica: the client id is per process, and tests run several workers in one.
        String replicaId = clientId + "-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        // What it completes while saturated, or lately if more; before it has been saturated, its
        // threads' rate of image work (an upper bound) or what it completes lately, whichever is more.
        java.util.function.DoubleSupplier replicaCapacity = () -> saturated.capacity(serviceRate.perThread() * capacityThreads);
        housekeeping.scheduleAtFixedRate(() -> {
            double c = replicaCapacity.getAsDouble();
            if (Double.isNaN(c)) return;
            try {
                capacity.publish(pool, replicaId, c, capacityThreads, clock.instant());
            } catch (RuntimeException e) {
                log.debug("capacity not published: {}", e.toString());
            }
        }, 5, 5, TimeUnit.SECONDS);
        Gauge.builder(MetricNames.WORKER_CAPACITY, replicaCapacity, r -> Double.isNaN(r.getAsDouble()) ? 0 : r.getAsDouble()).tag("pool", pool)
                .description("cost units per second this replica completes while saturated (work waiting, every thread busy); before it has been, its threads times one busy thread's rate of image work; 0 until measured").register(registry);
        Gauge.builder(MetricNames.FAIRNESS_INDEX, fairness::lastIndex).tag("pool", pool)
                .description("Jain's index over backlogged tenants' weight-normalised service in the last 60 s window").register(registry);
        Properties consumerProps = KafkaSupport.consumerProperties(bootstrap, Topics.workerGroup(pool), clientId, 100);
        consumerProps.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, (int) settings.maxPollInterval().toMillis());
        // The consumer and the catch-up's own consumer are built here and handed in, so the consumption's
        // parts run on a MockConsumer and a fake fetcher in tests.
        JobConsumer consumer = new JobConsumer(new KafkaConsumer<>(consumerProps), CatchUp.kafka(consumerProps, 100, nanos), Topics.jobs(pool),
                settings.consume(), scheduler, events, held, heldJobs, clock, nanos);
        ProcessingThreads processing = new ProcessingThreads(scheduler,
                (m, attempt, at, slot) -> runner.run(m, attempt, at, slot == JobScheduler.Slot.RESERVED), held, consumer.feedback(), listener,
                dependencyDown, threads, reservedThreads, settings.consume().sharedNice(), nanos)
                .abandonAfter(settings.consume().abandonAfter(), runner::abandon);
        consumer.processedBy(processing);
        Gauge.builder(MetricNames.JOBS_BUFFERED, consumer::buffered).tag("pool", pool).description("jobs buffered in the worker's scheduler, waiting for a processing thread").register(registry);
        ReadAheadMetrics.bind(consumer, registry, pool, tenantTags, clock, housekeeping);
        housekeeping.scheduleAtFixedRate(() -> saturated.sample(consumer.buffered() > 0 && processing.runningShared() >= capacityThreads, nanos.getAsLong()),
                1, 1, TimeUnit.SECONDS);
        consumer.onReadPast(t -> registry.counter(MetricNames.TENANT_READ_PAST, "pool", pool, "tenant", tenantTags.tag(t)).increment());
        Gauge.builder(MetricNames.JOBS_RUNNING, processing::running).tag("pool", pool).register(registry);
        runner.dependencyDown(dependencyDown).trueUpIn(new com.fairpix.core.admission.TrueUp(redis)).reportOverrunsTo(saturated::completed).recordUsageIn(com.fairpix.core.usage.UsageLedger.redis(redis, com.fairpix.core.usage.UsageRetention.from(config)));
        consumer.dependencyDown(dependencyDown);
        io.micrometer.core.instrument.FunctionCounter.builder(MetricNames.JOBS_ABANDONED, processing, ProcessingThreads::abandoned).tag("pool", pool)
                .description("jobs failed by the watchdog because one step ran past twice the job time limit (their thread was replaced)").register(registry);
        try {
            processorsStarted.get(com.fairpix.worker.processor.ProcessorProcesses.PRESTART_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            log.warn("processors not all started before consuming (the jobs that need one start it): {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the processors", e);
        }
        consumer.start();

        // The worker's metrics name tenants too: metrics.token guards them as it does the ingest's.
        service.metrics(com.fairpix.core.http.MetricsAccess.tokenOnServicePort(config))
                .ready("redis", () -> com.fairpix.core.redis.Redis.ready(redis))
                .ready("s3", () -> !s3Down.getAsBoolean() && objects.ping())
                .ready("kafka", consumer::healthy)
                .getJson("/health/formats", com.fairpix.worker.process.Codecs::describe);
        java.util.concurrent.ExecutorService finishing = finishers;
        // (The consumer stops first, in stop(), within its deadline.) Writes still running past the
        // deadline end before their clients close (their jobs are redelivered: their offsets were not
        // committed); a capacity publication still running would write after the withdrawal.
        service.stopFirst(() -> shutdown(finishing, "finishing threads still writing at shutdown"),
                        () -> shutdown(housekeeping, "housekeeping still running at shutdown"),
                        () -> {
                            try {
                                capacity.withdraw(pool, replicaId);
                            } catch (RuntimeException e) {
                                log.debug("capacity not withdrawn (it ages out in {} s): {}", com.fairpix.core.capacity.PoolCapacity.FRESH.toSeconds(), e.toString());
                            }
                        },
                        directory)
                .closeLast(pipeline, () -> producer.close(Duration.ofSeconds(5)), objects, redis);
        Worker worker = new Worker(consumer, service.start(config.get(Setting.BIND_HOST), httpPort,
                "worker for pool " + pool + " started with " + threads + " + " + reservedThreads + " reserved processing threads"));
        // With processors each one logs its codecs as it starts (its hello); the worker JVM loads none.
        if (settings.processors() != WorkerConfig.Processors.PROCESS) log.info("image formats: {}", com.fairpix.worker.process.Codecs.summary());
        return worker;
    }

    /** Interrupts {@code executor}'s tasks and waits up to 5 s for them to end; null is none. */
    private static boolean open(io.github.resilience4j.circuitbreaker.CircuitBreaker b) {
        io.github.resilience4j.circuitbreaker.CircuitBreaker.State state = b.getState();
        return state == io.github.resilience4j.circuitbreaker.CircuitBreaker.State.OPEN || state == io.github.resilience4j.circuitbreaker.CircuitBreaker.State.FORCED_OPEN;
    }

    private static void shutdown(java.util.concurrent.ExecutorService executor, String stillRunning) {
        if (executor == null) return;
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) log.warn(stillRunning);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The cached tenant; empty when unknown or when it cannot be loaded now (Redis away). */
    private static java.util.Optional<Tenant> lookup(TenantDirectory directory, String tenant) {
        try {
            return directory.byId(tenant);
        } catch (RuntimeException e) {
            return java.util.Optional.empty();
        }
    }

    /** Partition numbers of the pool's topic this worker owns now. */
    public java.util.Set<Integer> partitions() {
        return consumer.owned().stream().map(org.apache.kafka.common.TopicPartition::partition).collect(java.util.stream.Collectors.toSet());
    }

    /** Partition number → when it was last taken from this worker (epoch ms). */
    public java.util.Map<Integer, Long> lastRevoked() {
        java.util.Map<Integer, Long> out = new java.util.HashMap<>();
        consumer.lastRevoked().forEach((tp, t) -> out.put(tp.partition(), t));
        return out;
    }

    /** The port of /metrics and /health; -1 when it runs without HTTP. */
    public int httpPort() {
        return service.port();
    }

    /**
     * Graceful stop: finish running jobs within {@code deadline}, commit, leave the group; then the
     * finishing threads, housekeeping, the capacity figure, the tenant cache, HTTP and the clients.
     */
    public void stop(Duration deadline) {
        consumer.stop(deadline);
        service.close();
        log.info("worker stopped gracefully");
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(30));
    }
}
