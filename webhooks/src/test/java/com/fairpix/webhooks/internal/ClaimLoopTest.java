package com.fairpix.webhooks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.webhooks.InMemoryDeliveryStore;
import com.fairpix.core.time.ManualClock;
import com.fairpix.webhooks.WebhookDelivery;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Claims take no more than the dispatcher may run; the rest stays due in the store, and a claim is a lease. */
class ClaimLoopTest {
    final InMemoryDeliveryStore deliveries = new InMemoryDeliveryStore();
    final ManualClock clock = new ManualClock(Instant.parse("2026-01-31T12:00:00Z"));
    final List<String> attempted = new ArrayList<>();
    /** Attempts handed over but not yet run: the test runs them. */
    final List<Runnable> queued = new ArrayList<>();
    final ClaimLoop loop = new ClaimLoop(deliveries, (tenant, id) -> attempted.add(tenant + "/" + id), queued::add, 2, Duration.ofMillis(200), clock);

    void due(String tenant, String id) {
        deliveries.create(WebhookDelivery.pending(id, tenant, "job", "job.succeeded", "https://h/", "{}", clock.instant()));
    }

    @Test
    void noMoreAreClaimedThanMayRunAtOnce() {
        due("a", "d1");
        due("a", "d2");
        due("b", "d3");
        assertThat(loop.room()).isEqualTo(2);
        assertThat(loop.claim(loop.room())).isEqualTo(2);
        assertThat(loop.inFlight()).isEqualTo(2);
        assertThat(loop.room()).isZero();
        queued.forEach(Runnable::run);
        assertThat(loop.inFlight()).isZero();
        assertThat(loop.claim(loop.room())).isEqualTo(1);
        queued.getLast().run();
        assertThat(attempted).containsExactlyInAnyOrder("a/d1", "a/d2", "b/d3");
    }

    @Test
    void aClaimIsALeaseAndAMalformedMemberIsSkipped() {
        due("a", "d1");
        deliveries.scheduleMember("no-slash", clock.instant());
        assertThat(loop.claim(2)).isEqualTo(2);
        assertThat(queued).hasSize(1);
        assertThat(deliveries.due).containsEntry("a/d1", clock.instant().plus(ClaimLoop.LEASE).toEpochMilli());
        assertThat(loop.claim(2)).as("nothing is due until the lease ends").isZero();
        clock.advance(ClaimLoop.LEASE);
        assertThat(loop.claim(2)).isEqualTo(2);
    }
}
