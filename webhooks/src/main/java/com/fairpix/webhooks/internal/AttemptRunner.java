package com.fairpix.webhooks.internal;

import com.fairpix.core.log.LogSafe;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantState;
import com.fairpix.webhooks.DeliveryStore;
import com.fairpix.webhooks.DispatchEvent;
import com.fairpix.webhooks.DispatcherConfig;
import com.fairpix.webhooks.UrlGuard;
import com.fairpix.webhooks.WebhookDelivery;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt at one due delivery, and what its outcome makes of the delivery. Before sending: a
 * delivery no longer pending is dropped from the due set; one whose tenant is deleted is
 * dead-lettered and one whose endpoint a 410 disabled is marked so, both without an attempt; one
 * whose endpoint or tenant is at its concurrency limit, or whose endpoint's breaker is open, is put
 * off without an attempt (the retry series unchanged), each time in a row twice as long as the last
 * (from {@link #BUSY_DELAY} up to {@link #MAX_DEFER_DELAY}, never sooner than an open breaker's
 * open time), so a tenant whose endpoints never answer does not churn the due sets. Otherwise the URL is checked again (the host resolved once, connections
 * only to the checked addresses) and the signed payload sent. After: 2xx succeeds; 410 disables
 * the endpoint; anything else is retried on the schedule (a {@code Retry-After} may lengthen the
 * wait) until the last attempt, which dead-letters it.
 */
final class AttemptRunner {
    private static final Logger log = LoggerFactory.getLogger(AttemptRunner.class);
    /** How soon a delivery whose endpoint or tenant is at its concurrency limit is looked at again. */
    static final Duration BUSY_DELAY = Duration.ofMillis(500);
    /** The longest a delivery is put off at once: put-offs in a row double from {@link #BUSY_DELAY} up to this. */
    static final Duration MAX_DEFER_DELAY = Duration.ofSeconds(30);
    /** Endpoints (tenant + origin) whose slots and breaker are kept; the least recently used go first. */
    static final int MAX_ENDPOINTS = 10_000;
    /** An endpoint with no attempt for this long is forgotten (its breaker starts closed again). */
    static final Duration ENDPOINT_IDLE = Duration.ofMinutes(10);

    private final DispatcherConfig config;
    private final DeliveryStore deliveries;
    private final DispatchTenants tenants;
    private final UrlGuard guard;
    private final Transport transport;
    private final AttemptHeaders headers;
    private final EndpointLimits limits;
    private final Clock clock;
    private final RandomGenerator random;
    private final Consumer<DispatchEvent> events;

    /**
     * @param nanoTime a monotonic nanosecond source: how long an endpoint has been idle
     * @param random   the retry delays' jitter
     * @param events   told of every attempt, deferral and dead letter
     */
    AttemptRunner(DispatcherConfig config, DeliveryStore deliveries, DispatchTenants tenants, UrlGuard guard, Transport transport,
                         Clock clock, LongSupplier nanoTime, RandomGenerator random, Consumer<DispatchEvent> events) {
        this.config = config;
        this.deliveries = deliveries;
        this.tenants = tenants;
        this.guard = guard;
        this.transport = transport;
        this.headers = new AttemptHeaders(tenants, deliveries);
        this.clock = clock;
        this.random = random;
        this.events = events;
        CircuitBreakerConfig breakerConfig = CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(10)
                .minimumNumberOfCalls(5)
                .failureRateThreshold(50)
                .waitDurationInOpenState(config.breakerOpen())
                .permittedNumberOfCallsInHalfOpenState(1)
                .build();
        // Not a CircuitBreakerRegistry: it keeps every breaker it ever made.
        this.limits = new EndpointLimits(config.endpointConcurrency(), config.tenantConcurrency(), MAX_ENDPOINTS, ENDPOINT_IDLE, breakerConfig, nanoTime::getAsLong);
    }

    /** Makes (or puts back) the attempt at delivery {@code id} of {@code tenantId}, and records what came of it. */
    void attempt(String tenantId, String id) {
        Optional<WebhookDelivery> found = deliveries.get(tenantId, id);
        if (found.isEmpty() || found.get().status() != WebhookDelivery.Status.PENDING) {
            deliveries.unschedule(tenantId, id);
            return;
        }
        WebhookDelivery d = found.get();
        Optional<Tenant> tenant = tenants.byId(tenantId);
        if (tenant.isEmpty() || tenant.get().state() == TenantState.DELETED) {
            // Nobody left to notify: dead-letter rather than retry for a day.
            deadLetter(d.withStatus(WebhookDelivery.Status.DEAD), clock.instant());
            return;
        }
        if (deliveries.isDisabled(tenantId, d.url())) {
            deadLetter(d.withStatus(WebhookDelivery.Status.DISABLED), clock.instant());
            return;
        }
        Object granted = limits.tryAcquire(tenantId, origin(d.url()));
        if (!(granted instanceof EndpointLimits.Permit permit)) {
            putOff(d, granted == EndpointLimits.Refusal.TENANT_BUSY ? DispatchEvent.Reason.TENANT_BUSY : DispatchEvent.Reason.ENDPOINT_BUSY, Duration.ZERO);
            return;
        }
        try (permit) {
            CircuitBreaker breaker = permit.breaker();
            if (!breaker.tryAcquirePermission()) {
                putOff(d, DispatchEvent.Reason.BREAKER_OPEN, config.breakerOpen());
                return;
            }
            Instant at = clock.instant();
            Transport.Outcome outcome;
            try {
                UrlGuard.Checked target = guard.check(d.url());
                outcome = transport.send(target, headers.of(d, at), d.payload().getBytes(StandardCharsets.UTF_8));
            } catch (UrlGuard.RefusedException e) {
                // The attempt record is for operators (admin API): it may name the resolved address.
                outcome = new Transport.Outcome(0, "refused: " + e.detail(), null, Duration.ZERO);
            }
            record(d, at, outcome, breaker);
        }
    }

    private void record(WebhookDelivery d, Instant at, Transport.Outcome outcome, CircuitBreaker breaker) {
        boolean manual = d.seriesAttempt() == 0 && d.totalAttempts() > 0;
        var attempt = new WebhookDelivery.Attempt(at, outcome.status() == 0 ? null : outcome.status(), outcome.error(),
                outcome.elapsed().toMillis(), manual);
        Instant now = clock.instant();
        if (outcome.succeeded()) {
            breaker.onSuccess(outcome.elapsed().toNanos(), TimeUnit.NANOSECONDS);
            deliveries.save(d.attempted(attempt, WebhookDelivery.Status.SUCCEEDED, null));
            deliveries.unschedule(d.tenant(), d.id());
            events.accept(new DispatchEvent.Attempted(d.tenant(), DispatchEvent.Outcome.SUCCESS, outcome.elapsed()));
            return;
        }
        if (outcome.status() == 410) {
            // 410 Gone: the receiver says this endpoint is gone for good; stop sending to it.
            breaker.onSuccess(outcome.elapsed().toNanos(), TimeUnit.NANOSECONDS);
            deliveries.disable(d.tenant(), d.url());
            deadLetter(d.attempted(attempt, WebhookDelivery.Status.DISABLED, null), now);
            events.accept(new DispatchEvent.Attempted(d.tenant(), DispatchEvent.Outcome.GONE, outcome.elapsed()));
            events.accept(new DispatchEvent.DeadLettered(d.tenant()));
            log.info("endpoint {} of tenant {} answered 410 Gone; disabled", LogSafe.of(d.url()), d.tenant());
            return;
        }
        breaker.onError(outcome.elapsed().toNanos(), TimeUnit.NANOSECONDS, new RuntimeException(outcome.error() == null ? "HTTP " + outcome.status() : outcome.error()));
        boolean refused = outcome.error() != null && outcome.error().startsWith("refused");
        events.accept(new DispatchEvent.Attempted(d.tenant(), refused ? DispatchEvent.Outcome.REFUSED : DispatchEvent.Outcome.FAILURE, outcome.elapsed()));
        Duration wait = config.schedule().after(d.seriesAttempt() + 1, outcome.retryAfter(), random);
        if (wait == null) {
            deadLetter(d.attempted(attempt, WebhookDelivery.Status.DEAD, null), now);
            events.accept(new DispatchEvent.DeadLettered(d.tenant()));
            log.info("delivery {} of tenant {} dead-lettered after {} attempts", d.id(), d.tenant(), d.seriesAttempt() + 1);
            return;
        }
        Instant next = now.plus(wait);
        deliveries.save(d.attempted(attempt, WebhookDelivery.Status.PENDING, next));
        deliveries.schedule(d.tenant(), d.id(), next);
    }

    /**
     * Puts {@code d} off unattempted: due again after {@link #deferDelay}, at least {@code floor},
     * with its next-attempt time and deferral count saved (its attempts and retry series unchanged).
     */
    private void putOff(WebhookDelivery d, DispatchEvent.Reason reason, Duration floor) {
        Duration wait = deferDelay(d.deferrals(), random);
        if (wait.compareTo(floor) < 0) wait = floor;
        Instant next = clock.instant().plus(wait);
        deliveries.save(d.deferred(next));
        deliveries.schedule(d.tenant(), d.id(), next);
        events.accept(new DispatchEvent.Deferred(d.tenant(), reason));
    }

    /**
     * How long a delivery already put off {@code deferrals} times in a row waits now:
     * {@link #BUSY_DELAY} doubled per deferral, at most {@link #MAX_DEFER_DELAY}, stretched by up to
     * 20 % jitter so put-off deliveries do not come back in lock-step.
     */
    static Duration deferDelay(int deferrals, RandomGenerator random) {
        long ms = BUSY_DELAY.toMillis() << Math.min(Math.max(deferrals, 0), 20);
        ms = Math.min(ms, MAX_DEFER_DELAY.toMillis());
        return Duration.ofMillis(ms + (long) (ms * 0.2 * random.nextDouble()));
    }

    /** Stores {@code d} as it ended, out of the due set and in the tenant's dead letters since {@code at}. */
    private void deadLetter(WebhookDelivery d, Instant at) {
        deliveries.save(d);
        deliveries.unschedule(d.tenant(), d.id());
        deliveries.markDead(d.tenant(), d.id(), at);
    }

    /** The endpoint's origin ({@code scheme://host:port}), what its slots and breaker are kept by. */
    private static String origin(String url) {
        try {
            URI u = URI.create(url);
            return u.getScheme() + "://" + u.getRawAuthority();
        } catch (IllegalArgumentException e) {
            return url;
        }
    }
}
