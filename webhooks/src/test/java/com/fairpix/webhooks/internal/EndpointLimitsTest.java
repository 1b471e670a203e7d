package com.fairpix.webhooks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Per-endpoint and per-tenant caps, and state that stays bounded however many endpoints a tenant invents. */
class EndpointLimitsTest {
    final AtomicLong nanos = new AtomicLong();
    final EndpointLimits limits = new EndpointLimits(2, 3, 100, Duration.ofMinutes(10), CircuitBreakerConfig.ofDefaults(), nanos::get);

    @Test
    void capsPerEndpointAndPerTenant() {
        List<EndpointLimits.Permit> held = new ArrayList<>();
        held.add((EndpointLimits.Permit) limits.tryAcquire("a", "https://x:1"));
        held.add((EndpointLimits.Permit) limits.tryAcquire("a", "https://x:1"));
        assertThat(limits.tryAcquire("a", "https://x:1")).isEqualTo(EndpointLimits.Refusal.ENDPOINT_BUSY);
        held.add((EndpointLimits.Permit) limits.tryAcquire("a", "https://y:1"));
        assertThat(limits.tryAcquire("a", "https://z:1")).as("tenant a has 3 in flight").isEqualTo(EndpointLimits.Refusal.TENANT_BUSY);
        assertThat(limits.tryAcquire("b", "https://x:1")).as("another tenant is not held back").isInstanceOf(EndpointLimits.Permit.class);
        held.forEach(EndpointLimits.Permit::close);
        held.get(0).close(); // closing twice releases once
        // Were the second close a release, tenant a could now hold 4 and endpoint x 3: the caps still hold.
        assertThat(limits.tryAcquire("a", "https://x:1")).isInstanceOf(EndpointLimits.Permit.class);
        assertThat(limits.tryAcquire("a", "https://x:1")).isInstanceOf(EndpointLimits.Permit.class);
        assertThat(limits.tryAcquire("a", "https://x:1")).as("endpoint x is at its 2 again").isEqualTo(EndpointLimits.Refusal.ENDPOINT_BUSY);
        assertThat(limits.tryAcquire("a", "https://z:1")).isInstanceOf(EndpointLimits.Permit.class);
        assertThat(limits.tryAcquire("a", "https://w:1")).as("tenant a is at its 3 again").isEqualTo(EndpointLimits.Refusal.TENANT_BUSY);
    }

    @Test
    void rotatingEndpointsKeepAtMostTheCapAndIdleOnesAreForgotten() {
        for (int port = 1; port <= 10_000; port++) {
            ((EndpointLimits.Permit) limits.tryAcquire("rotator", "https://h:" + port)).close();
        }
        assertThat(limits.endpoints()).isLessThanOrEqualTo(100);
        assertThat(limits.tenantsInFlight()).isZero();
        nanos.addAndGet(Duration.ofMinutes(11).toNanos());
        assertThat(limits.endpoints()).isZero();
    }

    @Test
    void eachEndpointHasItsOwnBreaker() {
        EndpointLimits.Permit x = (EndpointLimits.Permit) limits.tryAcquire("a", "https://x:1");
        EndpointLimits.Permit y = (EndpointLimits.Permit) limits.tryAcquire("a", "https://y:1");
        assertThat(x.breaker()).isNotSameAs(y.breaker());
        x.breaker().transitionToOpenState();
        assertThat(y.breaker().getState()).isEqualTo(io.github.resilience4j.circuitbreaker.CircuitBreaker.State.CLOSED);
        x.close();
        y.close();
    }
}
