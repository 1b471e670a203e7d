package com.fairpix.ingest.overload.internal;

import static com.fairpix.ingest.overload.internal.FakeFarm.ACME;
import static com.fairpix.ingest.overload.internal.FakeFarm.admitted;
import static com.fairpix.ingest.overload.internal.FakeFarm.config;
import static com.fairpix.ingest.overload.internal.FakeFarm.peer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fairpix.core.error.RetryLater;
import com.fairpix.core.resilience.Breakers;
import com.fairpix.core.resilience.Dependency;
import com.fairpix.core.time.ManualClock;
import com.fairpix.ingest.overload.NodeState;
import com.fairpix.ingest.overload.OverloadConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The guard on fakes of its own ports (the farm channel, the pools' lag), a hand-moved clock and
 * real breakers; ticks run on the test's thread (a breaker's transition ticks at once).
 */
class DefaultOverloadGuardTest {
    static final Instant T0 = Instant.parse("2026-12-01T12:00:00Z");
    final ManualClock clock = new ManualClock(T0);
    final FakeFarm.Channel channel = new FakeFarm.Channel();
    final FakeFarm.Lag lag = new FakeFarm.Lag();
    final Breakers breakers = FakeFarm.breakers();

    DefaultOverloadGuard guard(OverloadConfig config) {
        BacklogMonitor backlog = config.shedding() ? new BacklogMonitor(lag, config.jobSeconds(), pool -> Double.NaN, pool -> 0) : null;
        return new DefaultOverloadGuard(config, () -> 0, breakers, channel, backlog, List.of("cpu", "gpu"), Runnable::run, clock, clock::nanoTime);
    }

    CircuitBreaker breaker(Dependency d) {
        return breakers.get(d);
    }

    @Test
    void aBreakerOpenOnThisNodeRefusesAtOnceNamingTheDependency() {
        DefaultOverloadGuard g = guard(config(false, 0.1));
        g.checkBreakers();
        breaker(Dependency.S3).transitionToForcedOpenState();

        RetryLater refused = catchThrowableOfType(RetryLater.class, g::checkBreakers);
        assertThat(refused.kind()).isEqualTo(RetryLater.Kind.DEPENDENCY);
        assertThat(refused.what()).isEqualTo("s3");
        assertThat(refused.retryAfterSeconds()).as("the breaker's open time").isEqualTo(5);
        assertThat(refused.members()).containsEntry("breaker", "open");
        assertThat(g.farmBreakerOpen(Dependency.S3)).isTrue();
        assertThat(g.rampLevel()).isZero();
        assertThat(channel.published.getLast().breakers()).containsEntry("s3", "FORCED_OPEN");
    }

    @Test
    void aBreakerOpenOnAPeerRefusesHereTooUntilThePeerIsNoLongerHeard() {
        DefaultOverloadGuard g = guard(config(false, 0.1));
        channel.peers.put("node-b", peer("node-b", Map.of("kafka", "OPEN"), 0, Map.of()));
        g.tick();

        assertThat(catchThrowableOfType(RetryLater.class, g::checkBreakers).what()).isEqualTo("kafka");
        assertThat(g.farmBreakerOpen(Dependency.KAFKA)).isTrue();
        channel.peers.clear();
        g.tick();
        g.checkBreakers();
        assertThat(g.rampLevel()).as("the farm recovered: the ramp starts here too").isEqualTo(0.1);
    }

    @Test
    void afterRecoveryOnlyGuaranteedTrafficIsAdmittedAtTheRampedRateUntilTheRampEnds() {
        DefaultOverloadGuard g = guard(config(false, 0.1));
        assertThat(g.rampLevel()).isEqualTo(1.0);
        breaker(Dependency.S3).transitionToForcedOpenState();
        breaker(Dependency.S3).transitionToHalfOpenState();
        g.checkBreakers();
        g.checkAdmitted(ACME, "cpu", admitted(5, 1));
        assertThat(g.rampLevel()).as("half-open: only the breaker's probes decide").isZero();

        breaker(Dependency.S3).transitionToClosedState();
        assertThat(g.rampLevel()).isEqualTo(0.1);
        RetryLater borrowed = catchThrowableOfType(RetryLater.class, () -> g.checkAdmitted(ACME, "cpu", admitted(5, 1)));
        assertThat(borrowed.what()).isEqualTo("ramp");
        assertThat(borrowed.retryAfterSeconds()).as("one ramp step").isEqualTo(1);
        // 10 % of 100 tokens/s on the one live node: one second holds two jobs of 5 tokens.
        clock.advance(Duration.ofSeconds(1));
        g.checkAdmitted(ACME, "cpu", admitted(5, 0));
        g.checkAdmitted(ACME, "cpu", admitted(5, 0));
        assertThat(catchThrowableOfType(RetryLater.class, () -> g.checkAdmitted(ACME, "cpu", admitted(5, 0))).what()).isEqualTo("ramp");

        g.tick();
        assertThat(g.rampLevel()).as("one step: doubled").isEqualTo(0.2);
        clock.advance(Duration.ofSeconds(3));
        g.tick();
        assertThat(g.rampLevel()).as("0.1 × 2^4 is over 1").isEqualTo(1.0);
        g.checkAdmitted(ACME, "cpu", admitted(500, 400));
    }

    @Test
    void aPeersLaterRampStartIsTakenSoNodesAgree() {
        DefaultOverloadGuard g = guard(config(false, 0.1));
        breaker(Dependency.S3).transitionToForcedOpenState();
        breaker(Dependency.S3).transitionToClosedState();
        clock.advance(Duration.ofSeconds(3));
        channel.peers.put("node-b", peer("node-b", Map.of(), T0.plusSeconds(2).toEpochMilli(), Map.of()));
        g.tick();

        assertThat(g.rampLevel()).as("one second into the peer's ramp, not three into ours").isEqualTo(0.2);
        assertThat(channel.published.getLast().rampStart()).isEqualTo(T0.plusSeconds(2).toEpochMilli());
    }

    @Test
    void aBacklogOverTheSoftBoundShedsBorrowedTrafficAndOverTheHardBoundAllButTheReservedShare() {
        DefaultOverloadGuard g = guard(config(true, 0));
        lag.messages.put("cpu", 100L);
        g.readBacklog();

        RetryLater borrowed = catchThrowableOfType(RetryLater.class, () -> g.checkAdmitted(ACME, "cpu", admitted(5, 1)));
        assertThat(borrowed.kind()).isEqualTo(RetryLater.Kind.CAPACITY);
        assertThat(borrowed.what()).isEqualTo("shed-borrowed");
        assertThat(borrowed.retryAfterSeconds()).as("100 s of backlog, 40 over the bound").isEqualTo(40);
        g.checkAdmitted(ACME, "cpu", admitted(5, 0));
        g.checkAdmitted(ACME, "gpu", admitted(5, 1));

        lag.messages.put("cpu", 400L);
        g.readBacklog();
        assertThat(g.sheddingLevel("cpu")).isEqualTo(2);
        assertThat(g.backlogSeconds("cpu")).isEqualTo(400);
        RetryLater reserved = catchThrowableOfType(RetryLater.class, () -> g.checkAdmitted(ACME, "cpu", admitted(5, 0)));
        assertThat(reserved.what()).isEqualTo("shed-reserved");
        assertThat(reserved.retryAfterSeconds()).as("capped").isEqualTo(Shedding.SHED_RETRY_AFTER_MAX_SECONDS);

        lag.messages.put("cpu", 0L);
        g.readBacklog();
        g.checkAdmitted(ACME, "cpu", admitted(5, 1));
        assertThat(channel.published.getLast().shedding()).containsEntry("cpu", 0);
    }

    @Test
    void aPeersSheddingLevelShedsHereWithTheDefaultRetryAfter() {
        DefaultOverloadGuard g = guard(config(false, 0.1));
        channel.peers.put("node-b", peer("node-b", Map.of(), 0, Map.of("cpu", 1)));
        g.tick();

        RetryLater shed = catchThrowableOfType(RetryLater.class, () -> g.checkAdmitted(ACME, "cpu", admitted(5, 1)));
        assertThat(shed.what()).isEqualTo("shed-borrowed");
        assertThat(shed.retryAfterSeconds()).as("no reading here").isEqualTo(Shedding.SHED_RETRY_AFTER_SECONDS);
        assertThat(g.backlogSeconds("cpu")).isNaN();
    }

    @Test
    void itPublishesItsStateOnEveryChangeAndAsAHeartbeat() {
        DefaultOverloadGuard g = guard(config(false, 0.1));
        g.tick();
        g.tick();
        clock.advance(Duration.ofMillis(FarmChannel.HEARTBEAT_MS - 1));
        g.tick();
        assertThat(channel.published).hasSize(1);
        clock.advance(Duration.ofMillis(1));
        g.tick();
        assertThat(channel.published).as("the heartbeat").hasSize(2);
        breaker(Dependency.REDIS).transitionToForcedOpenState();
        assertThat(channel.published).as("a change, at once").hasSize(3);
        NodeState last = channel.published.getLast();
        assertThat(last.node()).isEqualTo("node-a");
        assertThat(last.at()).isEqualTo(clock.millis());
        assertThat(last.rampLevel()).isZero();
    }

    @Test
    @SuppressWarnings("unchecked")
    void statusShowsTheFarmViewAndEveryNodeOrWhatThisOneKnowsWhileTheRegistryIsDown() {
        DefaultOverloadGuard g = guard(config(false, 0.1));
        channel.peers.put("node-b", peer("node-b", Map.of("s3", "OPEN"), 0, Map.of()));
        g.tick();

        Map<String, Object> status = g.status();
        assertThat(status.get("node")).isEqualTo("node-a");
        Map<String, Object> farm = (Map<String, Object>) status.get("farm");
        assertThat((Map<String, String>) farm.get("breakers")).containsEntry("s3", "OPEN").containsEntry("kafka", "CLOSED");
        assertThat(farm).containsEntry("rampLevel", 0.0).containsEntry("nodes", 2);
        assertThat((List<NodeState>) status.get("nodes")).extracting(NodeState::node).containsExactly("node-a", "node-b");

        channel.registryDown = true;
        assertThat((List<NodeState>) g.status().get("nodes")).extracting(NodeState::node).containsExactly("node-b", "node-a");
    }

    @Test
    void closeClosesTheChannelAndTheLagReaderItWasGiven() {
        DefaultOverloadGuard g = guard(config(true, 0.1));
        g.close();
        assertThat(channel.closed).isTrue();
        assertThat(lag.closed).isTrue();
    }
}
