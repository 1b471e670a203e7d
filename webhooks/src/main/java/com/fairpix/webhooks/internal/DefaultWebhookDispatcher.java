package com.fairpix.webhooks.internal;

import com.fairpix.core.kafka.Topics;
import com.fairpix.webhooks.DeliveryStore;
import com.fairpix.webhooks.DispatchEvent;
import com.fairpix.webhooks.DispatcherConfig;
import com.fairpix.webhooks.UrlGuard;
import com.fairpix.webhooks.WebhookDispatcher;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatcher's two loops, each on its own thread. Intake ({@link IntakeLoop} →
 * {@link EventIntake}) consumes events and stores one delivery per event id, due now. The claim
 * loop ({@link ClaimLoop}) takes due deliveries under a lease and runs each attempt
 * ({@link AttemptRunner}) on its own virtual thread; retries are later due times in the store, so
 * they survive restarts. All attempts share one HTTP client ({@link WebhookSender}) with a bounded
 * connection pool.
 */
public final class DefaultWebhookDispatcher implements WebhookDispatcher {
    private static final Logger log = LoggerFactory.getLogger(DefaultWebhookDispatcher.class);

    private final org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer;
    private final DeliveryStore deliveries;
    private final WebhookSender sender;
    private final List<Consumer<DispatchEvent>> listeners = new CopyOnWriteArrayList<>();
    private final ExecutorService attempts = Executors.newVirtualThreadPerTaskExecutor();
    private final IntakeLoop intake;
    private final ClaimLoop claims;
    private Thread intakeThread;
    private Thread claimThread;

    /**
     * @param consumer   reads {@code fairpix.events} in the dispatcher's consumer group; subscribed by {@link #start}, closed by {@link #stop}
     * @param deliveries where deliveries and their schedule are kept
     * @param tenants    the tenant records
     * @param jobUrl     (tenant, job id) → the job's own {@code webhookUrl}; empty when it set none or is gone
     * @param guard      checks each attempt's URL again and pins its addresses
     * @param sender     makes the attempts; closed by {@link #stop}
     * @param nanoTime   a monotonic nanosecond source (endpoint idle times)
     */
    public DefaultWebhookDispatcher(DispatcherConfig config, org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer, DeliveryStore deliveries,
                                    DispatchTenants tenants, BiFunction<String, String, Optional<String>> jobUrl, UrlGuard guard, WebhookSender sender,
                                    Clock clock, LongSupplier nanoTime) {
        this.consumer = consumer;
        this.deliveries = deliveries;
        this.sender = sender;
        this.intake = new IntakeLoop(consumer, new EventIntake(deliveries, tenants, jobUrl, clock, config.maxPendingPerTenant(),
                e -> listeners.forEach(l -> l.accept(e))));
        AttemptRunner runner = new AttemptRunner(config, deliveries, tenants, guard, sender, clock, nanoTime, RandomGenerator.getDefault(),
                e -> listeners.forEach(l -> l.accept(e)));
        this.claims = new ClaimLoop(deliveries, runner::attempt, attempts, config.maxInFlight(), config.pollInterval(), clock);
    }

    @Override
    public WebhookDispatcher start() {
        consumer.subscribe(List.of(Topics.EVENTS));
        intakeThread = Thread.ofPlatform().daemon().name("fairpix-webhooks-intake").start(intake);
        claimThread = Thread.ofPlatform().daemon().name("fairpix-webhooks-claim").start(claims);
        return this;
    }

    @Override
    public void onEvent(Consumer<DispatchEvent> listener) {
        listeners.add(listener);
    }

    @Override
    public long pending() {
        return deliveries.pending();
    }

    @Override
    public boolean consuming() {
        return intake.healthy();
    }

    @Override
    public void stop(Duration deadline) {
        intake.stop();
        claims.stop();
        if (claimThread != null) claimThread.interrupt();
        attempts.shutdown();
        try {
            attempts.awaitTermination(deadline.toMillis(), TimeUnit.MILLISECONDS);
            if (intakeThread != null) intakeThread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        attempts.shutdownNow();
        sender.close();
        log.info("webhook dispatcher stopped");
    }
}
