package com.fairpix.worker.notify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.error.RetryLater;
import com.fairpix.core.job.JobEvent;
import com.fairpix.core.resilience.BreakerSettings;
import com.fairpix.core.resilience.Breakers;
import com.fairpix.core.resilience.Dependency;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The Kafka breaker as the worker's event publisher meets it: an unacknowledged send (an outage)
 * and slow sends open it; a record Kafka refuses never does. Time is the breakers' hand-moved clock.
 */
class GuardedEventPublisherTest {
    // slow past 1 s; window 10, at least 5 calls, opens at 80 % slow or 50 % failed
    private static final BreakerSettings SETTINGS = new BreakerSettings(50, 80, Duration.ofSeconds(1), 10, 5, Duration.ofSeconds(5), 2, 95);
    private final AtomicLong now = new AtomicLong();
    private final CircuitBreaker kafka = Breakers.of(SETTINGS, now::get).get(Dependency.KAFKA);
    private final AtomicInteger sends = new AtomicInteger();
    private volatile long sendNanos = Duration.ofMillis(3).toNanos();
    private volatile RuntimeException fail;
    private final EventPublisher timed = new EventPublisher() {
        @Override public void publish(JobEvent event) { send(); }
        @Override public void deadLetter(String tenant, byte[] message, String reason, String detail) { send(); }

        private void send() {
            sends.incrementAndGet();
            now.addAndGet(sendNanos);
            if (fail != null) throw fail;
        }
    };
    private final GuardedEventPublisher events = new GuardedEventPublisher(timed, kafka);

    @Test
    void aRecordKafkaRefusesPassesThroughUncounted() {
        // what KafkaEventPublisher throws for RecordTooLarge
        fail = new IllegalStateException("cannot publish to fairpix.events: RecordTooLargeException");
        for (int i = 0; i < 50; i++) {
            assertThatThrownBy(() -> events.deadLetter("acme", new byte[1], "bad", "x")).isSameAs(fail);
        }
        assertThat(kafka.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(kafka.getMetrics().getNumberOfBufferedCalls()).as("neither failure nor success").isZero();
    }

    @Test
    void unacknowledgedSendsOpenItAndItThenRefusesWithoutSending() {
        fail = new RetryLater(RetryLater.Kind.DEPENDENCY, "kafka", "not acknowledged", 0, new java.util.concurrent.TimeoutException());
        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> events.publish(null)).isInstanceOf(RetryLater.class);
        }
        assertThat(kafka.getState()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThatThrownBy(() -> events.publish(null)).isInstanceOf(CallNotPermittedException.class);
        assertThat(sends).hasValue(5);
    }

    @Test
    void slowSendsByTheBreakersClockOpenIt() {
        events.publish(null);
        assertThat(kafka.getMetrics().getNumberOfSuccessfulCalls()).isEqualTo(1);
        assertThat(kafka.getMetrics().getNumberOfSlowCalls()).isZero();
        sendNanos = Duration.ofSeconds(2).toNanos();
        for (int i = 0; i < 4; i++) events.publish(null);
        assertThat(kafka.getMetrics().getNumberOfSlowSuccessfulCalls()).isEqualTo(4);
        assertThat(kafka.getState()).as("4 of 5 slow: 80 %").isEqualTo(CircuitBreaker.State.OPEN);
    }
}
