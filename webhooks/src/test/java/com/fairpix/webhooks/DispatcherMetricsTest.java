package com.fairpix.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.metrics.MetricNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The dispatcher's events become the meters it always had, with the same names and labels. */
class DispatcherMetricsTest {
    /** A dispatcher that only reports what the test tells it to. */
    static final class Reporting implements WebhookDispatcher {
        final List<Consumer<DispatchEvent>> listeners = new ArrayList<>();
        long pending = 3;
        boolean storeDown;

        void report(DispatchEvent e) {
            listeners.forEach(l -> l.accept(e));
        }

        @Override
        public WebhookDispatcher start() {
            return this;
        }

        @Override
        public void stop(Duration deadline) {}

        @Override
        public void onEvent(Consumer<DispatchEvent> listener) {
            listeners.add(listener);
        }

        @Override
        public long pending() {
            if (storeDown) throw new IllegalStateException("store away");
            return pending;
        }

        @Override
        public boolean consuming() {
            return true;
        }
    }

    final Reporting dispatcher = new Reporting();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void attemptsDeferralsAndDeadLettersAreCountedByTheirLabels() {
        new DispatcherMetrics(dispatcher, 10, System::nanoTime).bindTo(registry);
        dispatcher.report(new DispatchEvent.Attempted("acme", DispatchEvent.Outcome.SUCCESS, Duration.ofMillis(40)));
        dispatcher.report(new DispatchEvent.Attempted("acme", DispatchEvent.Outcome.GONE, Duration.ofMillis(10)));
        dispatcher.report(new DispatchEvent.DeadLettered("acme"));
        dispatcher.report(new DispatchEvent.Deferred("acme", DispatchEvent.Reason.ENDPOINT_BUSY));
        dispatcher.report(new DispatchEvent.Deferred("acme", DispatchEvent.Reason.BREAKER_OPEN));

        assertThat(registry.get(MetricNames.WEBHOOK_ATTEMPTS).tags("outcome", "success", "tenant", "acme").counter().count()).isEqualTo(1);
        assertThat(registry.get(MetricNames.WEBHOOK_ATTEMPTS).tags("outcome", "gone", "tenant", "acme").counter().count()).isEqualTo(1);
        assertThat(registry.get(MetricNames.WEBHOOK_ATTEMPTS).tags("outcome", "breaker-open", "tenant", "acme").counter().count())
                .as("an open breaker is counted among the attempts too").isEqualTo(1);
        assertThat(registry.get(MetricNames.WEBHOOK_ATTEMPT_DURATION).tags("tenant", "acme").timer().count()).isEqualTo(2);
        assertThat(registry.get(MetricNames.WEBHOOK_DEAD_LETTERED).tags("tenant", "acme").counter().count()).isEqualTo(1);
        assertThat(registry.get(MetricNames.WEBHOOK_DEFERRED).tags("reason", "endpoint-busy").counter().count()).isEqualTo(1);
        assertThat(registry.get(MetricNames.WEBHOOK_DEFERRED).tags("reason", "breaker-open").counter().count()).isEqualTo(1);
    }

    @Test
    void pendingIsReadFromTheDispatcherAndNaNWhileItsStoreIsAway() {
        new DispatcherMetrics(dispatcher, 10, System::nanoTime).bindTo(registry);
        assertThat(registry.get(MetricNames.WEBHOOK_PENDING).gauge().value()).isEqualTo(3);
        dispatcher.storeDown = true;
        assertThat(registry.get(MetricNames.WEBHOOK_PENDING).gauge().value()).isNaN();
    }

    @Test
    void tenantsBeyondTheLabelLimitShareOther() {
        new DispatcherMetrics(dispatcher, 0, System::nanoTime).bindTo(registry);
        dispatcher.report(new DispatchEvent.DeadLettered("acme"));
        assertThat(registry.get(MetricNames.WEBHOOK_DEAD_LETTERED).tags("tenant", "other").counter().count()).isEqualTo(1);
    }
}
