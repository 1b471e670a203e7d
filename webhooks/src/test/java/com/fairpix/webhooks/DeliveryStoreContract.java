package com.fairpix.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link DeliveryStore} does, run on each implementation ({@code InMemoryDeliveryStoreTest}
 * on the fake, {@code RedisDeliveryStoreIT} on Redis). The due index of tenants is farm-wide, so the
 * deliveries here are due in 1970, before any other user's of a shared Redis, and each test's
 * tenants are its own; what a test made due is taken out of the due sets afterwards.
 */
public abstract class DeliveryStoreContract {
    /** The store under test; it keeps a record at least an hour after its last change. */
    protected abstract DeliveryStore store();

    static final Instant T0 = Instant.ofEpochMilli(1_000_000);
    static final Duration LEASE = Duration.ofSeconds(60);
    private final String a = "dsc-a-" + UUID.randomUUID();
    private final String b = "dsc-b-" + UUID.randomUUID();
    private final List<WebhookDelivery> made = new ArrayList<>();

    @AfterEach
    void unscheduleWhatThisTestMade() {
        for (WebhookDelivery d : made) {
            store().unschedule(d.tenant(), d.id());
            store().clearDead(d.tenant(), d.id());
        }
        store().enableAll(a);
        store().enableAll(b);
    }

    /** A pending delivery of {@code tenant}, created and first due {@code seconds} after {@link #T0}. */
    private WebhookDelivery delivery(String tenant, long seconds) {
        WebhookDelivery d = WebhookDelivery.pending(UUID.randomUUID().toString(), tenant, UUID.randomUUID().toString(), "job.done",
                "https://hooks.example/" + tenant, "{}", T0.plusSeconds(seconds));
        made.add(d);
        return d;
    }

    private WebhookDelivery queued(String tenant, long seconds) {
        WebhookDelivery d = delivery(tenant, seconds);
        assertThat(store().create(d, Long.MAX_VALUE)).isEqualTo(DeliveryStore.Created.QUEUED);
        return d;
    }

    private static Instant at(long seconds) {
        return T0.plusSeconds(seconds);
    }

    @Test
    void aNewDeliveryIsStoredAndMadeDueAndASecondCreateIsADuplicate() {
        WebhookDelivery d = delivery(a, 0);
        assertThat(store().create(d)).isTrue();
        assertThat(store().get(a, d.id())).contains(d);
        assertThat(store().get(b, d.id())).as("another tenant's delivery is absent").isEmpty();
        assertThat(store().create(d, Long.MAX_VALUE)).as("an event consumed twice").isEqualTo(DeliveryStore.Created.DUPLICATE);
        assertThat(store().create(d)).isFalse();
        assertThat(store().pending(a)).isEqualTo(1);
    }

    @Test
    void aDeliveryPastTheTenantsCapIsStoredButNotMadeDue() {
        queued(a, 0);
        queued(a, 1);
        WebhookDelivery over = delivery(a, 2);
        assertThat(store().create(over, 2)).isEqualTo(DeliveryStore.Created.OVER_CAP);
        assertThat(store().get(a, over.id())).contains(over);
        assertThat(store().pending(a)).isEqualTo(2);
        assertThat(store().create(delivery(b, 2), 2)).as("the cap is per tenant").isEqualTo(DeliveryStore.Created.QUEUED);
    }

    @Test
    void aScheduleIsNeverRefusedByTheCap() {
        queued(a, 0);
        WebhookDelivery over = delivery(a, 1);
        assertThat(store().create(over, 1)).isEqualTo(DeliveryStore.Created.OVER_CAP);
        store().schedule(a, over.id(), at(5));
        assertThat(store().pending(a)).isEqualTo(2);
        assertThat(store().claimDue(a, at(5), LEASE, 10)).hasSize(2);
    }

    @Test
    void aSaveReplacesTheRecordAndLeavesItsSchedule() {
        WebhookDelivery d = queued(a, 0);
        WebhookDelivery put = d.deferred(at(30));
        store().save(put);
        assertThat(store().get(a, d.id())).contains(put);
        assertThat(store().claimDue(a, at(0), LEASE, 10)).as("still due at its first time").containsExactly(d.id());
    }

    @Test
    void aTenantsDeliveriesAreListedNewestFirstBeforeATime() {
        WebhookDelivery first = queued(a, 0), second = queued(a, 1), third = queued(a, 2);
        queued(b, 3);
        assertThat(store().list(a, null, 10)).containsExactly(third, second, first);
        assertThat(store().list(a, null, 2)).containsExactly(third, second);
        assertThat(store().list(a, at(2).toEpochMilli(), 10)).as("created before, exclusive").containsExactly(second, first);
    }

    @Test
    void aClaimTakesTheOldestDueDeliveriesAndLeasesThem() {
        WebhookDelivery early = queued(a, 0), later = queued(a, 1), third = queued(a, 2);
        queued(a, 100);
        assertThat(store().claimDue(a, at(10), LEASE, 2)).containsExactly(early.id(), later.id());
        assertThat(store().claimDue(a, at(10), LEASE, 10)).as("claimed ones are leased").containsExactly(third.id());
        assertThat(store().claimDue(a, at(10), LEASE, 10)).isEmpty();
        assertThat(store().claimDue(a, at(10).plus(LEASE), LEASE, 10)).as("a lease run out: the dispatcher died")
                .containsExactlyInAnyOrder(early.id(), later.id(), third.id());
        assertThat(store().pending(a)).as("a claim keeps them in the due set").isEqualTo(4);
    }

    @Test
    void theTenantWaitingLongestIsServedFirstAndAClaimedTenantGoesBehindThoseStillWaiting() {
        queued(a, 1);
        queued(a, 3);
        queued(b, 2);
        assertThat(store().dueTenants(at(0), 10)).as("nothing due yet").isEmpty();
        assertThat(store().dueTenants(at(10), 10)).containsExactly(a, b);
        assertThat(store().dueTenants(at(10), 1)).containsExactly(a);
        store().claimDue(a, at(10), LEASE, 1);
        assertThat(store().dueTenants(at(10), 10)).as("a still has one due, behind b").containsExactly(b, a);
        store().claimDue(b, at(10), LEASE, 10);
        store().claimDue(a, at(10), LEASE, 10);
        assertThat(store().dueTenants(at(10), 10)).as("all leased").isEmpty();
        assertThat(store().dueTenants(at(10).plus(LEASE), 10)).as("due again when their leases run out").containsExactlyInAnyOrder(a, b);
    }

    @Test
    void anUnscheduledDeliveryIsNoLongerDueAndATenantWithNothingDueLeavesTheIndex() {
        WebhookDelivery one = queued(a, 0), two = queued(a, 1);
        store().unschedule(a, one.id());
        assertThat(store().pending(a)).isEqualTo(1);
        assertThat(store().claimDue(a, at(10), LEASE, 10)).containsExactly(two.id());
        store().unschedule(a, two.id());
        assertThat(store().pending(a)).isZero();
        assertThat(store().dueTenants(at(10).plus(LEASE), 10)).doesNotContain(a);
        assertThat(store().get(a, one.id())).as("the record stays").isPresent();
    }

    @Test
    void pendingCountsEveryTenantsDueDeliveries() {
        long before = store().pending();
        queued(a, 0);
        queued(a, 1000);
        queued(b, 0);
        assertThat(store().pending() - before).isEqualTo(3);
        assertThat(store().pending(b)).isEqualTo(1);
    }

    @Test
    void deadLettersAreListedFromATimeOldestFirstUntilCleared() {
        WebhookDelivery one = delivery(a, 0), two = delivery(a, 1), three = delivery(a, 2);
        store().markDead(a, two.id(), at(20));
        store().markDead(a, one.id(), at(10));
        store().markDead(a, three.id(), at(30));
        store().markDead(a, three.id(), at(30));
        assertThat(store().deadSince(a, at(10))).containsExactly(one.id(), two.id(), three.id());
        assertThat(store().deadSince(a, at(20))).as("from, inclusive").containsExactly(two.id(), three.id());
        assertThat(store().deadSince(b, at(0))).isEmpty();
        store().clearDead(a, two.id());
        assertThat(store().deadSince(a, at(0))).containsExactly(one.id(), three.id());
    }

    @Test
    void aDisabledEndpointIsTheTenantsOnlyUntilEnabled() {
        String url = "https://hooks.example/gone", other = "https://hooks.example/other";
        store().disable(a, url);
        store().disable(a, other);
        assertThat(store().isDisabled(a, url)).isTrue();
        assertThat(store().isDisabled(b, url)).isFalse();
        store().enable(a, url);
        assertThat(store().isDisabled(a, url)).isFalse();
        assertThat(store().isDisabled(a, other)).isTrue();
        store().enableAll(a);
        assertThat(store().isDisabled(a, other)).isFalse();
    }

    @Test
    void thePreviousSecretIsKeptForAnOverlapAndNothingIsKeptWithoutOne() {
        assertThat(store().previousSecret(a)).isEmpty();
        store().keepPreviousSecret(a, "whsec_old", Duration.ofMinutes(5));
        assertThat(store().previousSecret(a)).contains("whsec_old");
        assertThat(store().previousSecret(b)).isEmpty();
        store().keepPreviousSecret(b, "whsec_old", Duration.ZERO);
        store().keepPreviousSecret(b, null, Duration.ofMinutes(5));
        assertThat(store().previousSecret(b)).isEmpty();
    }
}
