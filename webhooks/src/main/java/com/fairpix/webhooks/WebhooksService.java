package com.fairpix.webhooks;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.http.ServiceHttp;
import com.fairpix.core.kafka.KafkaSupport;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.tenant.TenantDirectory;
import com.fairpix.core.tenant.TenantStore;
import com.fairpix.core.time.SystemTime;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * The webhook dispatcher as a service ({@code fairpix webhooks}, and inside {@code fairpix local}):
 * connects to Redis and Kafka as configured, runs one {@link WebhookDispatcher} with its meters
 * bound, and serves {@code /metrics} and {@code /health} on {@code webhooks.port}.
 */
public final class WebhooksService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WebhooksService.class);
    /** The dispatchers' Kafka consumer group on {@code fairpix.events}. */
    public static final String GROUP = "fairpix-webhooks";

    private final UnifiedJedis redis;
    private final TenantDirectory directory;
    private final WebhookDispatcher dispatcher;
    private final Javalin http;

    private WebhooksService(UnifiedJedis redis, TenantDirectory directory, WebhookDispatcher dispatcher, Javalin http) {
        this.redis = redis;
        this.directory = directory;
        this.dispatcher = dispatcher;
        this.http = http;
    }

    /**
     * Starts the service on the system resolver.
     *
     * @param httpPort port for {@code /metrics} and {@code /health} (0 = any free port); negative runs it without them
     * @throws IllegalArgumentException naming a webhook setting that is invalid, before anything is connected
     */
    public static WebhooksService start(FairpixConfig config, int httpPort) {
        return start(config, DispatcherConfig.from(config), httpPort, UrlGuard.SYSTEM_DNS);
    }

    /**
     * Starts the service with settings already checked and a given resolver (tests stub DNS here).
     *
     * @param httpPort port for {@code /metrics} and {@code /health} (0 = any free port); negative runs it without them
     */
    public static WebhooksService start(FairpixConfig config, DispatcherConfig settings, int httpPort, UrlGuard.Resolver resolver) {
        String redisUrl = config.get(Setting.REDIS_URL);
        Clock clock = SystemTime.clock();
        LongSupplier nanos = SystemTime.nanos();
        UnifiedJedis redis = Redis.connect(redisUrl);
        TenantDirectory directory = new TenantDirectory(new TenantStore(redis, clock), Redis.subscriber(redisUrl), 250).start();
        String bootstrap = config.get(Setting.KAFKA_BOOTSTRAP);
        KafkaSupport.ensureTopics(bootstrap, config.integer(Setting.JOB_PARTITIONS));
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(KafkaSupport.consumerProperties(bootstrap, GROUP,
                "fairpix-webhooks-" + ManagementFactory.getRuntimeMXBean().getPid(), 200));
        WebhookDispatcher dispatcher = WebhookDispatchers.create(settings, consumer, redis, directory, resolver, clock, nanos);
        PrometheusMeterRegistry registry = ServiceHttp.newRegistry();
        new DispatcherMetrics(dispatcher, config.integer(Setting.METRICS_TENANT_LABELS), nanos).bindTo(registry);
        dispatcher.start();
        Javalin http = null;
        if (httpPort >= 0) {
            Map<String, BooleanSupplier> readiness = new LinkedHashMap<>();
            readiness.put("redis", () -> Redis.ready(redis));
            readiness.put("kafka", dispatcher::consuming);
            http = ServiceHttp.create(registry, readiness, c -> {});
            http.start(config.get(Setting.BIND_HOST), httpPort);
        }
        log.info("webhook dispatcher started (retry schedule {}, {} per endpoint{})", settings.schedule().delays(), settings.endpointConcurrency(),
                http == null ? "" : ", HTTP on port " + http.port());
        return new WebhooksService(redis, directory, dispatcher, http);
    }

    /** The port {@code /metrics} and {@code /health} are served on; -1 when not served. */
    public int httpPort() {
        return http == null ? -1 : http.port();
    }

    /** Stops the dispatcher (attempts in flight get up to {@code deadline}), then the HTTP listener and the connections. */
    public void stop(Duration deadline) {
        dispatcher.stop(deadline);
        if (http != null) http.stop();
        directory.close();
        redis.close();
    }

    /** {@link #stop} with 20 s for the attempts in flight. */
    @Override
    public void close() {
        stop(Duration.ofSeconds(20));
    }
}
