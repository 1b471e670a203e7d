package com.fairpix.webhooks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.tenant.TenantState;
import com.fairpix.webhooks.DispatchEvent;
import com.fairpix.webhooks.DispatcherConfig;
import com.fairpix.webhooks.InMemoryDeliveryStore;
import com.fairpix.core.time.ManualClock;
import com.fairpix.webhooks.RetrySchedule;
import com.fairpix.webhooks.UrlGuard;
import com.fairpix.webhooks.WebhookDelivery;
import com.fairpix.webhooks.WebhookSecrets;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** One attempt and what its outcome makes of the delivery, on a clock moved by hand. */
class AttemptRunnerTest {
    static final String URL = "https://hooks.example.com/acme";
    final InMemoryDeliveryStore deliveries = new InMemoryDeliveryStore();
    final FakeTenants tenants = new FakeTenants();
    final ManualClock clock = new ManualClock(Instant.parse("2026-01-31T12:00:00Z"));
    final List<DispatchEvent> events = new CopyOnWriteArrayList<>();
    /** What the fake transport answers next, and what it was sent. */
    final List<Transport.Outcome> answers = new ArrayList<>();
    final List<Map<String, String>> sent = new ArrayList<>();
    final Transport transport = (target, headers, body) -> {
        sent.add(headers);
        return answers.removeFirst();
    };
    final UrlGuard guard = new UrlGuard(false, List.of(), host -> new InetAddress[] {InetAddress.getByAddress(host, new byte[] {93, (byte) 184, (byte) 216, 34})});

    AttemptRunner runner(String schedule, int endpointConcurrency) {
        return runner(schedule, endpointConcurrency, transport);
    }

    AttemptRunner runner(String schedule, int endpointConcurrency, Transport transport) {
        DispatcherConfig config = new DispatcherConfig(RetrySchedule.parse(schedule), endpointConcurrency, 16, 256, 10_000, Duration.ofMillis(200),
                Duration.ofSeconds(30), Duration.ZERO, false, List.of(), Duration.ofDays(1));
        // No jitter: a retry is due exactly after its delay.
        return new AttemptRunner(config, deliveries, tenants, guard, transport, clock, clock::nanoTime, () -> 0L, events::add);
    }

    WebhookDelivery due(String id, String url) {
        if (tenants.byId("acme").isEmpty()) tenants.add("acme", URL, WebhookSecrets.generate());
        WebhookDelivery d = WebhookDelivery.pending(id, "acme", "job-" + id, "job.succeeded", url, "{}", clock.instant());
        deliveries.create(d);
        return d;
    }

    static Transport.Outcome status(int code) {
        return new Transport.Outcome(code, null, null, Duration.ofMillis(40));
    }

    @Test
    void a2xxSucceedsAndLeavesTheDueSet() {
        due("d1", URL);
        answers.add(status(204));
        runner("5s", 4).attempt("acme", "d1");
        WebhookDelivery d = deliveries.get("acme", "d1").orElseThrow();
        assertThat(d.status()).isEqualTo(WebhookDelivery.Status.SUCCEEDED);
        assertThat(d.attempts()).singleElement().satisfies(a -> {
            assertThat(a.statusCode()).isEqualTo(204);
            assertThat(a.durationMillis()).isEqualTo(40);
            assertThat(a.at()).isEqualTo(clock.instant());
        });
        assertThat(deliveries.due).isEmpty();
        assertThat(sent.getFirst()).containsEntry("webhook-id", "d1");
        assertThat(events).containsExactly(new DispatchEvent.Attempted("acme", DispatchEvent.Outcome.SUCCESS, Duration.ofMillis(40)));
    }

    @Test
    void aFailureIsRetriedOnTheScheduleAndALongerRetryAfterWins() {
        due("d2", URL);
        AttemptRunner runner = runner("5s,1m", 4);
        answers.add(status(500));
        runner.attempt("acme", "d2");
        assertThat(deliveries.get("acme", "d2").orElseThrow().status()).isEqualTo(WebhookDelivery.Status.PENDING);
        assertThat(deliveries.due).containsEntry("acme/d2", clock.instant().plusSeconds(5).toEpochMilli());

        clock.advance(Duration.ofSeconds(5));
        answers.add(new Transport.Outcome(503, null, Duration.ofMinutes(3), Duration.ofMillis(10)));
        runner.attempt("acme", "d2");
        assertThat(deliveries.due).as("Retry-After 3 min beats the 1 min delay").containsEntry("acme/d2", clock.instant().plusSeconds(180).toEpochMilli());
        assertThat(events).extracting(e -> ((DispatchEvent.Attempted) e).outcome()).containsExactly(DispatchEvent.Outcome.FAILURE, DispatchEvent.Outcome.FAILURE);
    }

    @Test
    void theLastFailedAttemptDeadLettersTheDelivery() {
        due("d3", URL);
        AttemptRunner runner = runner("5s", 4);
        answers.add(status(500));
        runner.attempt("acme", "d3");
        clock.advance(Duration.ofSeconds(5));
        answers.add(status(500));
        runner.attempt("acme", "d3");
        WebhookDelivery d = deliveries.get("acme", "d3").orElseThrow();
        assertThat(d.status()).isEqualTo(WebhookDelivery.Status.DEAD);
        assertThat(d.attempts()).hasSize(2);
        assertThat(deliveries.due).isEmpty();
        assertThat(deliveries.deadSince("acme", clock.instant())).containsExactly("d3");
        assertThat(events.getLast()).isEqualTo(new DispatchEvent.DeadLettered("acme"));
    }

    @Test
    void a410DisablesTheEndpointAndLaterDeliveriesToItAreNotAttempted() {
        due("d4", URL);
        due("d5", URL);
        AttemptRunner runner = runner("5s", 4);
        answers.add(status(410));
        runner.attempt("acme", "d4");
        assertThat(deliveries.get("acme", "d4").orElseThrow().status()).isEqualTo(WebhookDelivery.Status.DISABLED);
        assertThat(deliveries.isDisabled("acme", URL)).isTrue();
        assertThat(events).containsExactly(new DispatchEvent.Attempted("acme", DispatchEvent.Outcome.GONE, Duration.ofMillis(40)),
                new DispatchEvent.DeadLettered("acme"));

        runner.attempt("acme", "d5");
        assertThat(sent).hasSize(1);
        assertThat(deliveries.get("acme", "d5").orElseThrow().status()).isEqualTo(WebhookDelivery.Status.DISABLED);
        assertThat(deliveries.deadSince("acme", Instant.EPOCH)).containsExactlyInAnyOrder("d4", "d5");
    }

    @Test
    void aUrlTheGuardRefusesIsAFailedAttemptThatNeverReachesTheNetwork() {
        due("d6", "https://127.0.0.1/hook");
        runner("5s", 4).attempt("acme", "d6");
        assertThat(sent).isEmpty();
        WebhookDelivery d = deliveries.get("acme", "d6").orElseThrow();
        assertThat(d.attempts().getFirst().error()).startsWith("refused:").contains("loopback");
        assertThat(events).containsExactly(new DispatchEvent.Attempted("acme", DispatchEvent.Outcome.REFUSED, Duration.ZERO));
    }

    @Test
    void aDeletedTenantsDeliveryIsDeadLetteredWithoutAnAttempt() {
        due("d7", URL);
        tenants.byId.computeIfPresent("acme", (k, t) -> t.withState(TenantState.DELETED));
        runner("5s", 4).attempt("acme", "d7");
        assertThat(sent).isEmpty();
        assertThat(deliveries.get("acme", "d7").orElseThrow().status()).isEqualTo(WebhookDelivery.Status.DEAD);
        assertThat(deliveries.due).isEmpty();
    }

    @Test
    void aDeliveryNoLongerPendingIsOnlyDroppedFromTheDueSet() {
        WebhookDelivery d = due("d8", URL);
        deliveries.save(d.withStatus(WebhookDelivery.Status.SUCCEEDED));
        runner("5s", 4).attempt("acme", "d8");
        assertThat(sent).isEmpty();
        assertThat(deliveries.due).isEmpty();
        assertThat(events).isEmpty();
    }

    @Test
    void aBusyEndpointPutsTheDeliveryBackHalfASecondLaterUnattempted() throws Exception {
        due("d9", URL);
        due("d10", URL);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // The first attempt holds the endpoint's only slot until the test lets it answer.
        AttemptRunner holding = runner("5s", 1, (target, headers, body) -> {
            inside.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return status(204);
        });
        Thread first = Thread.ofVirtual().start(() -> holding.attempt("acme", "d9"));
        inside.await();
        holding.attempt("acme", "d10");
        assertThat(deliveries.due).containsEntry("acme/d10", clock.instant().plus(AttemptRunner.BUSY_DELAY).toEpochMilli());
        assertThat(events).containsExactly(new DispatchEvent.Deferred("acme", DispatchEvent.Reason.ENDPOINT_BUSY));
        release.countDown();
        first.join();
        assertThat(deliveries.get("acme", "d9").orElseThrow().status()).isEqualTo(WebhookDelivery.Status.SUCCEEDED);
    }

    @Test
    void anOpenBreakerHoldsTheEndpointsDeliveriesBackForItsOpenTime() {
        AttemptRunner runner = runner("1s,1s,1s,1s,1s,1s", 4);
        for (int i = 0; i < 5; i++) {
            due("f" + i, URL);
            answers.add(status(500));
            runner.attempt("acme", "f" + i);
        }
        due("f5", URL);
        runner.attempt("acme", "f5");
        assertThat(sent).as("five failures of five open the breaker").hasSize(5);
        assertThat(deliveries.due).containsEntry("acme/f5", clock.instant().plusSeconds(30).toEpochMilli());
        assertThat(events.getLast()).isEqualTo(new DispatchEvent.Deferred("acme", DispatchEvent.Reason.BREAKER_OPEN));
    }

    @Test
    void putOffDeliveriesBackOffAndAdvanceTheirNextAttemptWithoutCountingAnAttempt() throws Exception {
        due("g1", URL);
        due("g2", URL);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AttemptRunner holding = runner("5s", 1, (target, headers, body) -> {
            inside.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return status(204);
        });
        Thread first = Thread.ofVirtual().start(() -> holding.attempt("acme", "g1"));
        inside.await();
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Instant before = clock.instant();
            holding.attempt("acme", "g2");
            WebhookDelivery d = deliveries.get("acme", "g2").orElseThrow();
            assertThat(d.nextAttemptAt()).isEqualTo(Instant.ofEpochMilli(deliveries.due.get("acme/g2")));
            waits.add(Duration.between(before, d.nextAttemptAt()).toMillis());
            clock.set(d.nextAttemptAt());
        }
        assertThat(waits).as("doubling from 0.5 s, capped at 30 s").containsExactly(500L, 1000L, 2000L, 4000L, 8000L, 16000L, 30000L, 30000L);
        WebhookDelivery putOff = deliveries.get("acme", "g2").orElseThrow();
        assertThat(putOff.deferrals()).isEqualTo(8);
        assertThat(putOff.attempts()).as("a put-off is not an attempt").isEmpty();
        assertThat(putOff.seriesAttempt()).isZero();
        release.countDown();
        first.join();
        answers.add(status(500));
        holding.attempt("acme", "g2");
        WebhookDelivery tried = deliveries.get("acme", "g2").orElseThrow();
        assertThat(tried.seriesAttempt()).as("the retry series moves only on attempts").isEqualTo(1);
        assertThat(tried.deferrals()).as("an attempt starts the put-off count again").isZero();
    }

    @Test
    void aPutOffWaitsHalfASecondFirstAndAtMostThirtySecondsPlusJitter() {
        assertThat(AttemptRunner.deferDelay(0, () -> 0L)).isEqualTo(AttemptRunner.BUSY_DELAY);
        assertThat(AttemptRunner.deferDelay(100, () -> 0L)).isEqualTo(AttemptRunner.MAX_DEFER_DELAY);
        assertThat(AttemptRunner.deferDelay(100, new java.util.Random(1))).isBetween(AttemptRunner.MAX_DEFER_DELAY, AttemptRunner.MAX_DEFER_DELAY.multipliedBy(12).dividedBy(10));
    }
}
