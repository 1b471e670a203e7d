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
    void aClaimIsALease() {
        due("a", "d1");
        assertThat(loop.claim(2)).isEqualTo(1);
        assertThat(queued).hasSize(1);
        assertThat(deliveries.due).containsEntry("a/d1", clock.instant().plus(ClaimLoop.LEASE).toEpochMilli());
        assertThat(loop.claim(2)).as("nothing is due until the lease ends").isZero();
        clock.advance(ClaimLoop.LEASE);
        assertThat(loop.claim(2)).isEqualTo(1);
    }

    @Test
    void aTenantsHugeOlderBacklogTakesOnlyItsShareAndAnotherTenantIsClaimedAtOnce() {
        for (int i = 0; i < 1000; i++) due("a", "a" + i);
        clock.advance(Duration.ofSeconds(1));
        due("b", "b1");
        assertThat(loop.claim(10)).isEqualTo(10);
        queued.forEach(Runnable::run);
        assertThat(attempted).contains("b/b1");
        assertThat(attempted.stream().filter(m -> m.startsWith("a/"))).as("a takes what b left").hasSize(9);
    }

    @Test
    void theRoomIsSharedEquallyAndWhatOneTenantLeavesGoesToTheOthers() {
        for (int i = 0; i < 50; i++) due("a", "a" + i);
        for (int i = 0; i < 50; i++) due("b", "b" + i);
        due("c", "c1");
        assertThat(loop.claim(9)).isEqualTo(9);
        queued.forEach(Runnable::run);
        assertThat(attempted).contains("c/c1");
        assertThat(attempted.stream().filter(m -> m.startsWith("a/"))).hasSize(4);
        assertThat(attempted.stream().filter(m -> m.startsWith("b/"))).hasSize(4);
    }

    @Test
    void withMoreTenantsThanRoomTenantsAreServedInTurn() {
        // a's backlog is the oldest; yet once served, a waits behind b and c.
        for (int i = 0; i < 20; i++) due("a", "a" + i);
        clock.advance(Duration.ofMillis(10));
        for (int i = 0; i < 20; i++) due("b", "b" + i);
        clock.advance(Duration.ofMillis(10));
        for (int i = 0; i < 20; i++) due("c", "c" + i);
        for (int round = 0; round < 6; round++) {
            clock.advance(Duration.ofMillis(1));
            assertThat(loop.claim(1)).isEqualTo(1);
        }
        queued.forEach(Runnable::run);
        assertThat(attempted).extracting(m -> m.substring(0, 1)).containsExactly("a", "b", "c", "a", "b", "c");
    }
}
