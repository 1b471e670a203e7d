package com.fairpix.worker.notify;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.http.ServiceHttp;
import com.fairpix.core.job.JobEvent;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.KafkaSupport;
import com.fairpix.core.kafka.Topics;
import com.fairpix.core.metrics.MetricNames;
import com.fairpix.core.metrics.TenantTags;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantDirectory;
import com.fairpix.core.tenant.TenantStore;
import com.fairpix.core.webhook.DeliveryStore;
import com.fairpix.core.webhook.RetrySchedule;
import com.fairpix.core.webhook.UrlGuard;
import com.fairpix.core.webhook.WebhookDelivery;
import com.fairpix.core.webhook.WebhookSecrets;
import com.fairpix.core.webhook.WebhookSignature;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.javalin.Javalin;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * The webhook dispatcher: turns {@code job.succeeded} / {@code job.failed} events from
 * {@code fairpix.events} (its own consumer group) into signed deliveries to the tenant's endpoint.
 *
 * <p>Two loops. Intake consumes events and stores one delivery per event id in Redis, due now
 * (offsets are committed only after that, and a re-consumed event finds its delivery already there).
 * The claim loop takes due deliveries from Redis's due set under a lease and runs each attempt on
 * its own virtual thread; retries are just later scores in that set, so they survive restarts.
 *
 * <p>Isolation: each tenant endpoint gets at most {@code endpointConcurrency} attempts in flight
 * here and its own circuit breaker, each tenant at most {@code tenantConcurrency} over all its
 * endpoints, and the dispatcher at most {@code maxInFlight} in all; a delivery that finds its
 * endpoint, tenant or dispatcher full, or its breaker open, is put back a little later without an
 * attempt, so a slow or dead endpoint holds only its own slots and never a thread or a queue
 * position another tenant needs.
 *
 * <p>Bounded state: the per-endpoint slots and breaker live in a Caffeine cache of at most
 * {@link #MAX_ENDPOINTS} entries that forgets an endpoint idle for {@link #ENDPOINT_IDLE}, so a
 * tenant rotating hosts or ports cannot grow the heap; all attempts share one HTTP client
 * ({@link WebhookSender}) with a bounded connection pool.
 */
public final class WebhookDispatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WebhookDispatcher.class);
    public static final String GROUP = "fairpix-webhooks";
    private static final com.fasterxml.jackson.databind.ObjectWriter PAYLOAD_WRITER =
            Json.mapper().writer().with(com.fasterxml.jackson.core.JsonGenerator.Feature.COMBINE_UNICODE_SURROGATES_IN_UTF8);
    /** Longer than an attempt's 15 s deadline: a claim outlives its attempt unless the dispatcher died. */
    static final Duration LEASE = Duration.ofSeconds(60);
    /** How soon a delivery whose endpoint is at its concurrency limit is looked at again. */
    static final Duration BUSY_DELAY = Duration.ofMillis(500);
    /** Endpoints (tenant + origin) whose slots and breaker are kept; the least recently used go first. */
    static final int MAX_ENDPOINTS = 10_000;
    /** An endpoint with no attempt for this long is forgotten (its breaker starts closed again). */
    static final Duration ENDPOINT_IDLE = Duration.ofMinutes(10);

    /**
     * Tuning of one dispatcher.
     *
     * @param endpointConcurrency attempts in flight at once per tenant endpoint
     * @param pollInterval        how often the due set is checked
     * @param breakerOpen         how long an endpoint's open circuit breaker holds deliveries back
     * @param tenantConcurrency   attempts in flight at once for one tenant, over all its endpoints
     * @param maxInFlight         attempts in flight at once in this dispatcher
     */
    public record Options(RetrySchedule schedule, int endpointConcurrency, Duration pollInterval, Duration breakerOpen, Duration secretOverlap,
                          int tenantConcurrency, int maxInFlight) {
        public Options(RetrySchedule schedule, int endpointConcurrency, Duration pollInterval, Duration breakerOpen, Duration secretOverlap) {
            this(schedule, endpointConcurrency, pollInterval, breakerOpen, secretOverlap, Math.max(endpointConcurrency, 16), 256);
        }

        public static Options fromConfig(FairpixConfig config) {
            return new Options(RetrySchedule.parse(config.get(Setting.WEBHOOKS_RETRY_SCHEDULE)),
                    config.integer(Setting.WEBHOOKS_ENDPOINT_CONCURRENCY), Duration.ofMillis(200), Duration.ofSeconds(30),
                    Duration.ofSeconds(config.longValue(Setting.WEBHOOKS_SECRET_OVERLAP_SECONDS)),
                    config.integer(Setting.WEBHOOKS_TENANT_CONCURRENCY), config.integer(Setting.WEBHOOKS_MAX_IN_FLIGHT));
        }
    }


    private final UnifiedJedis redis;
    private final DeliveryStore deliveries;
    private final TenantDirectory directory;
    private final TenantStore tenants;
    private final JobStore jobs;
    private final UrlGuard guard;
    private final WebhookSender sender;
    private final Options options;
    private final Clock clock;
    private final PrometheusMeterRegistry registry;
    private final TenantTags tenantTags;
    private final KafkaConsumer<String, byte[]> consumer;
    private final EndpointLimits limits;
    private final ExecutorService attempts = Executors.newVirtualThreadPerTaskExecutor();
    private final RandomGenerator random = RandomGenerator.getDefault();
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean running = true;
    private volatile boolean kafkaHealthy;
    private Thread intakeThread;
    private Thread claimThread;
    private Javalin http;

    private WebhookDispatcher(FairpixConfig config, UrlGuard.Resolver resolver, Options options, Clock clock) {
        this.redis = Redis.connect(config.get(Setting.REDIS_URL));
        this.deliveries = new DeliveryStore(redis, Duration.ofSeconds(config.longValue(Setting.JOB_RETENTION_SECONDS)));
        this.tenants = new TenantStore(redis, clock);
        this.directory = new TenantDirectory(tenants, Redis.subscriber(config.get(Setting.REDIS_URL)), 250).start();
        this.jobs = new JobStore(redis, config.longValue(Setting.JOB_RETENTION_SECONDS));
        this.guard = new UrlGuard(config.bool(Setting.WEBHOOKS_ALLOW_HTTP), UrlGuard.parseAllowList(config.get(Setting.WEBHOOKS_ALLOW_LIST)), resolver);
        // No per-route cap in the pool: one route (host:port) may serve several tenants' endpoints, and
        // EndpointLimits already caps each tenant endpoint; a per-route cap would let one tenant's slow
        // attempts hold the connections another tenant's endpoint on the same host needs.
        this.sender = new WebhookSender(WebhookSender.TOTAL_TIMEOUT, null, options.maxInFlight(), options.maxInFlight());
        this.options = options;
        this.clock = clock;
        this.registry = ServiceHttp.newRegistry();
        this.tenantTags = new TenantTags(registry, config.integer(Setting.METRICS_TENANT_LABELS), com.fairpix.core.time.SystemTime.nanos());
        CircuitBreakerConfig breakerConfig = CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(10)
                .minimumNumberOfCalls(5)
                .failureRateThreshold(50)
                .waitDurationInOpenState(options.breakerOpen())
                .permittedNumberOfCallsInHalfOpenState(1)
                .build();
        // Not a CircuitBreakerRegistry: it keeps every breaker it ever made.
        this.limits = new EndpointLimits(options.endpointConcurrency(), options.tenantConcurrency(), MAX_ENDPOINTS, ENDPOINT_IDLE, breakerConfig,
                com.github.benmanes.caffeine.cache.Ticker.systemTicker());
        String bootstrap = config.get(Setting.KAFKA_BOOTSTRAP);
        KafkaSupport.ensureTopics(bootstrap, config.integer(Setting.JOB_PARTITIONS));
        Properties props = KafkaSupport.consumerProperties(bootstrap, GROUP,
                "fairpix-webhooks-" + ManagementFactory.getRuntimeMXBean().getPid(), 200);
        this.consumer = new KafkaConsumer<>(props);
        Gauge.builder(MetricNames.WEBHOOK_PENDING, () -> {
            try {
                return deliveries.pending();
            } catch (RuntimeException e) {
                return Double.NaN;
            }
        }).description("webhook deliveries waiting for an attempt").register(registry);
    }

    /** Starts a dispatcher on the system resolver; {@code httpPort} negative runs it without /metrics. */
    public static WebhookDispatcher start(FairpixConfig config, int httpPort) {
        return start(config, httpPort, UrlGuard.SYSTEM_DNS, Options.fromConfig(config), Clock.systemUTC());
    }

    /** Starts a dispatcher with a given resolver (tests stub DNS here) and options. */
    public static WebhookDispatcher start(FairpixConfig config, int httpPort, UrlGuard.Resolver resolver, Options options, Clock clock) {
        WebhookDispatcher d = new WebhookDispatcher(config, resolver, options, clock);
        d.consumer.subscribe(List.of(Topics.EVENTS));
        d.intakeThread = Thread.ofPlatform().daemon().name("fairpix-webhooks-intake").start(d::intakeLoop);
        d.claimThread = Thread.ofPlatform().daemon().name("fairpix-webhooks-claim").start(d::claimLoop);
        if (httpPort >= 0) {
            Map<String, BooleanSupplier> readiness = new LinkedHashMap<>();
            readiness.put("redis", () -> com.fairpix.core.redis.Redis.ready(d.redis));
            readiness.put("kafka", () -> d.kafkaHealthy);
            d.http = ServiceHttp.create(d.registry, readiness, c -> {});
            d.http.start(config.get(Setting.BIND_HOST), httpPort);
        }
        log.info("webhook dispatcher started (retry schedule {}, {} per endpoint{})", options.schedule().delays(), options.endpointConcurrency(),
                d.http == null ? "" : ", HTTP on port " + d.http.port());
        return d;
    }

    public int httpPort() {
        return http == null ? -1 : http.port();
    }

    // ---- intake: events → stored deliveries ----

    private void intakeLoop() {
        while (running) {
            try {
                ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(250));
                kafkaHealthy = true;
                Map<TopicPartition, Long> retryFrom = new LinkedHashMap<>();
                for (ConsumerRecord<String, byte[]> r : records) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    if (retryFrom.containsKey(tp)) continue;
                    try {
                        intake(r.value());
                    } catch (RuntimeException e) {
                        // Redis away: re-read this partition from here rather than lose the event.
                        log.warn("cannot store a webhook delivery, will retry: {}", e.toString());
                        retryFrom.put(tp, r.offset());
                    }
                }
                if (retryFrom.isEmpty()) {
                    if (!records.isEmpty()) consumer.commitSync();
                } else {
                    Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> commit = new LinkedHashMap<>();
                    for (TopicPartition tp : records.partitions()) {
                        long next = retryFrom.containsKey(tp) ? retryFrom.get(tp) : records.records(tp).getLast().offset() + 1;
                        commit.put(tp, new org.apache.kafka.clients.consumer.OffsetAndMetadata(next));
                    }
                    consumer.commitSync(commit);
                    retryFrom.forEach(consumer::seek);
                    Thread.sleep(1000);
                }
            } catch (WakeupException e) {
                if (!running) break;
            } catch (InterruptedException e) {
                break;
            } catch (RuntimeException e) {
                kafkaHealthy = false;
                log.warn("webhook intake: {}", e.toString());
                sleepQuietly(1000);
            }
        }
        try {
            consumer.close(Duration.ofSeconds(5));
        } catch (RuntimeException ignored) {
            // leaving anyway
        }
    }

    /** Stores the delivery for one event, if it is a completion the tenant (or the job) wants to hear about. */
    void intake(byte[] value) {
        JobEvent event;
        try {
            event = Json.read(value, JobEvent.class);
        } catch (RuntimeException e) {
            log.warn("skipping an unreadable event on {}: {}", Topics.EVENTS, e.getMessage());
            return;
        }
        if (!event.type().equals("job.succeeded") && !event.type().equals("job.failed")) return;
        Optional<Tenant> tenant = directory.byId(event.tenant());
        if (tenant.isEmpty()) return;
        String url = jobs.get(event.tenant(), event.jobId()).map(JobRecord::spec).map(s -> s.webhookUrl()).orElse(null);
        if (url == null) url = tenant.get().webhookUrl();
        if (url == null || url.isBlank()) return;
        String payload = new String(payload(event), StandardCharsets.UTF_8);
        if (deliveries.create(WebhookDelivery.pending(event.eventId(), event.tenant(), event.jobId(), event.type(), url, payload, clock.instant()))) {
            log.debug("delivery {} of tenant {} queued", event.eventId(), event.tenant());
        }
    }

    /**
     * The thin payload: type, timestamp, and data with the job id, tenant, status, the results'
     * sizes (no URLs: the receiver fetches them with its API key) and the monotonic job version.
     */
    static byte[] payload(JobEvent event) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("jobId", event.jobId());
        data.put("tenant", event.tenant());
        data.put("status", event.state());
        data.put("version", event.jobVersion());
        if (event.results() != null && !event.results().isEmpty()) {
            Map<String, Object> results = new LinkedHashMap<>();
            event.results().forEach((name, r) -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("format", r.format());
                m.put("width", r.width());
                m.put("height", r.height());
                m.put("size", r.size());
                results.put(name, m);
            });
            data.put("results", results);
        }
        if (event.error() != null) data.put("error", event.error());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", event.type());
        body.put("timestamp", event.timestamp());
        body.put("data", data);
        try {
            // UTF-8 throughout: characters beyond the BMP (emoji) as their 4 UTF-8 bytes, not as \\u surrogate escapes.
            return PAYLOAD_WRITER.writeValueAsBytes(body);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    // ---- claim loop: due deliveries → attempts ----

    private void claimLoop() {
        while (running) {
            try {
                // Claim no more than the dispatcher may run: the rest stays due in Redis, not in memory.
                int room = Math.min(200, options.maxInFlight() - inFlight.get());
                if (room <= 0) {
                    Thread.sleep(options.pollInterval().toMillis());
                    continue;
                }
                List<String> due = deliveries.claimDue(clock.instant(), LEASE, room);
                for (String member : due) {
                    int slash = member.indexOf('/');
                    if (slash < 0) continue;
                    String tenant = member.substring(0, slash);
                    String id = member.substring(slash + 1);
                    inFlight.incrementAndGet();
                    attempts.execute(() -> {
                        try {
                            attempt(tenant, id);
                        } catch (RuntimeException e) {
                            log.warn("webhook attempt {} of {} failed on our side: {}", id, tenant, e.toString());
                        } finally {
                            inFlight.decrementAndGet();
                        }
                    });
                }
                if (due.size() < room) Thread.sleep(options.pollInterval().toMillis());
            } catch (InterruptedException e) {
                break;
            } catch (RuntimeException e) {
                if (!running) break;
                log.warn("webhook claim loop: {}", e.toString());
                sleepQuietly(1000);
            }
        }
    }

    private void attempt(String tenantId, String id) {
        Optional<WebhookDelivery> found = deliveries.get(tenantId, id);
        if (found.isEmpty() || found.get().status() != WebhookDelivery.Status.PENDING) {
            deliveries.unschedule(tenantId, id);
            return;
        }
        WebhookDelivery d = found.get();
        Optional<Tenant> tenant = directory.byId(tenantId);
        if (tenant.isEmpty() || tenant.get().state() == com.fairpix.core.tenant.TenantState.DELETED) {
            // Nobody left to notify: dead-letter rather than retry for a day.
            deliveries.save(d.withStatus(WebhookDelivery.Status.DEAD));
            deliveries.unschedule(tenantId, id);
            deliveries.markDead(tenantId, id, clock.instant());
            return;
        }
        if (deliveries.isDisabled(tenantId, d.url())) {
            deliveries.save(d.withStatus(WebhookDelivery.Status.DISABLED));
            deliveries.unschedule(tenantId, id);
            deliveries.markDead(tenantId, id, clock.instant());
            return;
        }
        Object granted = limits.tryAcquire(tenantId, origin(d.url()));
        if (!(granted instanceof EndpointLimits.Permit permit)) {
            deliveries.schedule(tenantId, id, clock.instant().plus(BUSY_DELAY));
            deferred(granted == EndpointLimits.Refusal.TENANT_BUSY ? "tenant-busy" : "endpoint-busy");
            return;
        }
        try (permit) {
            CircuitBreaker breaker = permit.breaker();
            if (!breaker.tryAcquirePermission()) {
                deliveries.schedule(tenantId, id, clock.instant().plus(options.breakerOpen()));
                count(tenantId, "breaker-open");
                deferred("breaker-open");
                return;
            }
            Instant at = clock.instant();
            WebhookSender.Outcome outcome;
            try {
                UrlGuard.Checked target = guard.check(d.url());
                outcome = sender.send(target, headers(d, at), d.payload().getBytes(StandardCharsets.UTF_8));
            } catch (UrlGuard.RefusedException e) {
                outcome = new WebhookSender.Outcome(0, "refused: " + e.getMessage(), null, Duration.ZERO);
            }
            record(d, at, outcome, breaker);
        }
    }

    private void deferred(String reason) {
        registry.counter(MetricNames.WEBHOOK_DEFERRED, "reason", reason).increment();
    }

    /** Endpoints whose state is kept now (bounded by {@link #MAX_ENDPOINTS}). */
    public long endpointsTracked() {
        return limits.endpoints();
    }

    private void record(WebhookDelivery d, Instant at, WebhookSender.Outcome outcome, CircuitBreaker breaker) {
        boolean manual = d.seriesAttempt() == 0 && d.totalAttempts() > 0;
        var attempt = new WebhookDelivery.Attempt(at, outcome.status() == 0 ? null : outcome.status(), outcome.error(),
                outcome.elapsed().toMillis(), manual);
        registry.timer(MetricNames.WEBHOOK_ATTEMPT_DURATION, "tenant", tenantTags.tag(d.tenant())).record(outcome.elapsed());
        Instant now = clock.instant();
        if (outcome.succeeded()) {
            breaker.onSuccess(outcome.elapsed().toNanos(), TimeUnit.NANOSECONDS);
            deliveries.save(d.attempted(attempt, WebhookDelivery.Status.SUCCEEDED, null));
            deliveries.unschedule(d.tenant(), d.id());
            count(d.tenant(), "success");
            return;
        }
        if (outcome.status() == 410) {
            // 410 Gone: the receiver says this endpoint is gone for good; stop sending to it.
            breaker.onSuccess(outcome.elapsed().toNanos(), TimeUnit.NANOSECONDS);
            deliveries.disable(d.tenant(), d.url());
            deliveries.save(d.attempted(attempt, WebhookDelivery.Status.DISABLED, null));
            deliveries.unschedule(d.tenant(), d.id());
            deliveries.markDead(d.tenant(), d.id(), now);
            count(d.tenant(), "gone");
            registry.counter(MetricNames.WEBHOOK_DEAD_LETTERED, "tenant", tenantTags.tag(d.tenant())).increment();
            log.info("endpoint {} of tenant {} answered 410 Gone; disabled", com.fairpix.core.log.LogSafe.of(d.url()), d.tenant());
            return;
        }
        breaker.onError(outcome.elapsed().toNanos(), TimeUnit.NANOSECONDS, new RuntimeException(outcome.error() == null ? "HTTP " + outcome.status() : outcome.error()));
        count(d.tenant(), outcome.error() != null && outcome.error().startsWith("refused") ? "refused" : "failure");
        Duration wait = options.schedule().after(d.seriesAttempt() + 1, outcome.retryAfter(), random);
        if (wait == null) {
            deliveries.save(d.attempted(attempt, WebhookDelivery.Status.DEAD, null));
            deliveries.unschedule(d.tenant(), d.id());
            deliveries.markDead(d.tenant(), d.id(), now);
            registry.counter(MetricNames.WEBHOOK_DEAD_LETTERED, "tenant", tenantTags.tag(d.tenant())).increment();
            log.info("delivery {} of tenant {} dead-lettered after {} attempts", d.id(), d.tenant(), d.seriesAttempt() + 1);
            return;
        }
        Instant next = now.plus(wait);
        deliveries.save(d.attempted(attempt, WebhookDelivery.Status.PENDING, next));
        deliveries.schedule(d.tenant(), d.id(), next);
    }

    private void count(String tenant, String outcome) {
        registry.counter(MetricNames.WEBHOOK_ATTEMPTS, "outcome", outcome, "tenant", tenantTags.tag(tenant)).increment();
    }

    /** The Standard Webhooks headers of one attempt: same id every time, this attempt's timestamp and signatures. */
    private Map<String, String> headers(WebhookDelivery d, Instant at) {
        long ts = at.getEpochSecond();
        Map<String, String> h = new LinkedHashMap<>();
        h.put(WebhookSignature.ID, d.id());
        h.put(WebhookSignature.TIMESTAMP, Long.toString(ts));
        h.put(WebhookSignature.SIGNATURE, WebhookSignature.header(secrets(d.tenant()), d.id(), ts, d.payload().getBytes(StandardCharsets.UTF_8)));
        h.put("User-Agent", "fairpix-webhooks/1");
        return h;
    }

    /** The tenant's current secret (made now if it has none) and, during a rotation's overlap, the previous one. */
    private List<String> secrets(String tenantId) {
        Tenant t = directory.byId(tenantId).orElseThrow(() -> new IllegalStateException("tenant " + tenantId + " is gone"));
        String current = t.webhookSecret();
        if (current == null) {
            current = tenants.update(tenantId, x -> x.webhookSecret() != null ? x.withWebhookSecret(x.webhookSecret()) : x.withWebhookSecret(WebhookSecrets.generate()))
                    .map(Tenant::webhookSecret).orElseThrow();
        }
        List<String> out = new ArrayList<>();
        out.add(current);
        deliveries.previousSecret(tenantId).filter(p -> !p.equals(t.webhookSecret())).ifPresent(out::add);
        return out;
    }

    private static String origin(String url) {
        try {
            URI u = URI.create(url);
            return u.getScheme() + "://" + u.getRawAuthority();
        } catch (IllegalArgumentException e) {
            return url;
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Attempts running now. */
    public int inFlight() {
        return inFlight.get();
    }

    /** Stops taking work; attempts in flight get up to {@code deadline} to finish (an unfinished one is retried after its lease). */
    public void stop(Duration deadline) {
        running = false;
        consumer.wakeup();
        if (claimThread != null) claimThread.interrupt();
        attempts.shutdown();
        try {
            attempts.awaitTermination(deadline.toMillis(), TimeUnit.MILLISECONDS);
            if (intakeThread != null) intakeThread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        attempts.shutdownNow();
        if (http != null) http.stop();
        sender.close();
        directory.close();
        redis.close();
        log.info("webhook dispatcher stopped");
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(20));
    }
}
