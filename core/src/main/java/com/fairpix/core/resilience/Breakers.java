package com.fairpix.core.resilience;

import com.fairpix.core.time.SystemTime;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Resilience4j {@link CircuitBreaker} per {@link Dependency} (closed → open on a failure-rate
 * or slow-call threshold → half-open probes → closed), with their state bound to Micrometer by
 * resilience4j-micrometer ({@code resilience4j_circuitbreaker_state{name="kafka",state="open"}}).
 *
 * <p>Resilience4j judges half-open probes by the same failure-rate threshold as the closed state.
 * The issue asks for a stricter bar to close (default 95 % of probes succeed), so the probes are
 * counted here and a breaker that closed on worse probes is opened again at once.
 *
 * <p>Which exceptions count differs by dependency ({@link #ignored}): Redis's and Kafka's breakers
 * count only outages, S3's everything but a client error.
 *
 * <p>Source: Resilience4j CircuitBreaker documentation,
 * https://resilience4j.readme.io/docs/circuitbreaker (count-based sliding window, states).
 */
public final class Breakers {
    private static final Logger log = LoggerFactory.getLogger(Breakers.class);

    private final CircuitBreakerRegistry registry;
    private final Map<Dependency, CircuitBreaker> breakers = new EnumMap<>(Dependency.class);

    /**
     * @param nanos monotonic clock, nanoseconds: what the breakers time the calls they run
     *              ({@code executeSupplier}, {@code executeRunnable}, ...) by, for the slow-call rate
     */
    private Breakers(BreakerSettings s, LongSupplier nanos) {
        CircuitBreakerConfig base = CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(s.windowCalls())
                .minimumNumberOfCalls(Math.min(s.minimumCalls(), s.windowCalls()))
                .failureRateThreshold(s.failureRatePercent())
                .slowCallRateThreshold(s.slowCallRatePercent())
                .slowCallDurationThreshold(s.slowCall())
                .waitDurationInOpenState(s.open())
                // A timer moves an open breaker to half-open after the wait even with no call on
                // this node: other nodes follow this node's state and send it no probes themselves.
                .automaticTransitionFromOpenToHalfOpenEnabled(true)
                .permittedNumberOfCallsInHalfOpenState(s.probes())
                .currentTimestampFunction(clock -> nanos.getAsLong(), TimeUnit.NANOSECONDS)
                .build();
        this.registry = CircuitBreakerRegistry.of(base);
        for (Dependency d : Dependency.values()) {
            CircuitBreaker cb = registry.circuitBreaker(d.id(), CircuitBreakerConfig.from(base).ignoreException(ignored(d)).build());
            breakers.put(d, cb);
            strictProbes(cb, s.probeSuccessPercent());
            cb.getEventPublisher().onStateTransition(e -> log.warn("circuit breaker {}: {}", d.id(), e.getStateTransition()));
        }
    }

    /**
     * The exceptions {@code d}'s breaker counts neither way: an ignored exception releases the
     * call's permission and is not recorded, as failure or as success (Resilience4j's
     * {@code recordException} alone would record the others as successes).
     * <ul>
     *   <li>Redis and Kafka: everything but an outage ({@link Outages}): a refused command, a bug,
     *       a record Kafka calls too large, are answers about one call and cannot open a
     *       farm-wide breaker (issue 34).</li>
     *   <li>S3: client errors ({@link ClientErrors}: a missing object, an S3 4xx for the tenant's
     *       key); the rest counts. {@link GuardedObjectStore} reports its calls by hand (it scales
     *       their durations per byte), through this same predicate.</li>
     * </ul>
     */
    static Predicate<Throwable> ignored(Dependency d) {
        return switch (d) {
            case REDIS, KAFKA -> t -> !Outages.is(t);
            case S3 -> ClientErrors::is;
        };
    }

    /** The breakers, timing calls by the system's monotonic clock. */
    public static Breakers of(BreakerSettings s) {
        return of(s, SystemTime.nanos());
    }

    /**
     * The breakers, timing the calls they run by {@code nanos} (a test's hand-moved clock).
     *
     * @param nanos monotonic clock, nanoseconds
     */
    public static Breakers of(BreakerSettings s, LongSupplier nanos) {
        return new Breakers(s, nanos);
    }

    public CircuitBreaker get(Dependency d) {
        return breakers.get(d);
    }

    /** Binds {@code resilience4j_circuitbreaker_*} (state, calls, failure rate) to {@code meters}. */
    public Breakers bindTo(MeterRegistry meters) {
        TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(registry).bindTo(meters);
        return this;
    }

    /** Whether any breaker is not CLOSED (open, half-open or forced). */
    public boolean anyNotClosed() {
        for (CircuitBreaker cb : breakers.values()) if (cb.getState() != CircuitBreaker.State.CLOSED) return true;
        return false;
    }

    private static void strictProbes(CircuitBreaker cb, double requiredPercent) {
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        cb.getEventPublisher().onSuccess(e -> { if (cb.getState() == CircuitBreaker.State.HALF_OPEN) ok.incrementAndGet(); });
        cb.getEventPublisher().onError(e -> { if (cb.getState() == CircuitBreaker.State.HALF_OPEN) failed.incrementAndGet(); });
        cb.getEventPublisher().onStateTransition(e -> {
            switch (e.getStateTransition()) {
                case OPEN_TO_HALF_OPEN -> { ok.set(0); failed.set(0); }
                case HALF_OPEN_TO_CLOSED -> {
                    int n = ok.get() + failed.get();
                    if (n > 0 && 100.0 * ok.get() / n < requiredPercent) {
                        log.warn("circuit breaker {}: only {}/{} probes succeeded (< {} %), opening again", cb.getName(), ok.get(), n, requiredPercent);
                        cb.transitionToOpenState();
                    }
                }
                default -> { }
            }
        });
    }
}
