package com.fairpix.webhooks;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.http.ServiceBootstrap;
import com.fairpix.core.kafka.KafkaSupport;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.tenant.TenantDirectory;
import com.fairpix.core.tenant.TenantStore;
import com.fairpix.core.time.SystemTime;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import redis.clients.jedis.UnifiedJedis;

/**
 * The webhook dispatcher as a service ({@code fairpix webhooks}, and inside {@code fairpix local}):
 * connects to Redis and Kafka as configured, runs one {@link WebhookDispatcher} with its meters
 * bound, and serves {@code /metrics} and {@code /health} on {@code webhooks.port}.
 */
public final class WebhooksService implements AutoCloseable {
    /** The dispatchers' Kafka consumer group on {@code fairpix.events}. */
    public static final String GROUP = "fairpix-webhooks";

    private final WebhookDispatcher dispatcher;
    private final ServiceBootstrap.Running service;

    private WebhooksService(WebhookDispatcher dispatcher, ServiceBootstrap.Running service) {
        this.dispatcher = dispatcher;
        this.service = service;
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
        ServiceBootstrap service = ServiceBootstrap.create(WebhooksService.class, io.micrometer.core.instrument.Tags.empty());
        new DispatcherMetrics(dispatcher, config.integer(Setting.METRICS_TENANT_LABELS), nanos).bindTo(service.registry());
        dispatcher.start();
        service.metrics(com.fairpix.core.http.MetricsAccess.tokenOnServicePort(config))
                .ready("redis", () -> Redis.ready(redis))
                .ready("kafka", dispatcher::consuming)
                // (The dispatcher stops first, in stop(), within its deadline.)
                .closeLast(directory, redis);
        return new WebhooksService(dispatcher, service.start(config.get(Setting.BIND_HOST), httpPort,
                "webhook dispatcher started (retry schedule " + settings.schedule().delays() + ", " + settings.endpointConcurrency() + " per endpoint)"));
    }

    /** The port {@code /metrics} and {@code /health} are served on; -1 when not served. */
    public int httpPort() {
        return service.port();
    }

    /** Stops the dispatcher (attempts in flight get up to {@code deadline}), then the HTTP listener and the connections. */
    public void stop(Duration deadline) {
        dispatcher.stop(deadline);
        service.close();
    }

    /** {@link #stop} with 20 s for the attempts in flight. */
    @Override
    public void close() {
        stop(Duration.ofSeconds(20));
    }
}
