package com.fairpix.webhooks.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The webhook dispatcher's admission of one attempt: at most {@code perEndpoint} in flight per
 * tenant endpoint (tenant + origin), {@code perTenant} per tenant over all its endpoints, each
 * endpoint with its own circuit breaker. State is bounded whatever tenants do: endpoints live in a
 * Caffeine cache of at most {@code maxEndpoints} entries, forgotten after {@code idle} without an
 * attempt (a forgotten endpoint's breaker starts closed again); a tenant's counter exists only while
 * it has an attempt in flight.
 *
 * <p>An endpoint evicted for size while attempts run keeps its slots for those attempts; the next
 * attempt gets a fresh entry, so for a moment that endpoint may have up to twice its slots in flight
 * (the tenant cap still holds).
 */
final class EndpointLimits {
    /** One endpoint's attempt slots and circuit breaker. */
    record Endpoint(Semaphore slots, CircuitBreaker breaker) {}

    /** Why an attempt was not let through. */
    enum Refusal { TENANT_BUSY, ENDPOINT_BUSY }

    /** A granted attempt: its endpoint's breaker; close it when the attempt ends. */
    interface Permit extends AutoCloseable {
        CircuitBreaker breaker();

        @Override
        void close();
    }

    private final int perEndpoint;
    private final int perTenant;
    private final CircuitBreakerConfig breakerConfig;
    private final Cache<String, Endpoint> endpoints;
    private final ConcurrentHashMap<String, AtomicInteger> tenants = new ConcurrentHashMap<>();

    EndpointLimits(int perEndpoint, int perTenant, int maxEndpoints, Duration idle, CircuitBreakerConfig breakerConfig, Ticker ticker) {
        this.perEndpoint = perEndpoint;
        this.perTenant = perTenant;
        this.breakerConfig = breakerConfig;
        this.endpoints = Caffeine.newBuilder().maximumSize(maxEndpoints).expireAfterAccess(idle).ticker(ticker).executor(Runnable::run).build();
    }

    /**
     * @return a permit, or the refusal (the attempt should be put back a little later, unmade)
     */
    Object tryAcquire(String tenant, String origin) {
        Endpoint endpoint = endpoints.get(tenant + " " + origin, k -> new Endpoint(new Semaphore(perEndpoint), CircuitBreaker.of(k, breakerConfig)));
        boolean[] ok = new boolean[1];
        tenants.compute(tenant, (k, v) -> {
            AtomicInteger c = v == null ? new AtomicInteger() : v;
            ok[0] = c.get() < perTenant;
            if (ok[0]) c.incrementAndGet();
            return c.get() == 0 ? null : c;
        });
        if (!ok[0]) return Refusal.TENANT_BUSY;
        if (!endpoint.slots().tryAcquire()) {
            releaseTenant(tenant);
            return Refusal.ENDPOINT_BUSY;
        }
        boolean[] closed = new boolean[1];
        return new Permit() {
            @Override
            public CircuitBreaker breaker() {
                return endpoint.breaker();
            }

            @Override
            public void close() {
                synchronized (closed) {
                    if (closed[0]) return;
                    closed[0] = true;
                }
                endpoint.slots().release();
                releaseTenant(tenant);
            }
        };
    }

    private void releaseTenant(String tenant) {
        tenants.computeIfPresent(tenant, (k, c) -> c.decrementAndGet() <= 0 ? null : c);
    }

    /** Endpoints whose state is kept now. */
    long endpoints() {
        endpoints.cleanUp();
        return endpoints.estimatedSize();
    }

    /** Tenants with an attempt in flight now. */
    int tenantsInFlight() {
        return tenants.size();
    }
}
