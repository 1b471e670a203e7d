package com.fairpix.core.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.job.InMemoryJobStore;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;
import com.fairpix.core.job.JobStore;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The Redis breaker as the worker's job store meets it: outages and slow calls open it, a refused
 * command never does. Time is a hand-moved clock, the breakers' own: each call "takes" {@code callNanos}.
 */
class GuardedJobStoreTest {
    // slow past 1 s; window 10, at least 5 calls, opens at 80 % slow or 50 % failed
    private final AtomicLong now = new AtomicLong();
    private final CircuitBreaker redis = Breakers.of(ClientErrorsTest.SETTINGS, now::get).get(Dependency.REDIS);
    private final Timed timed = new Timed(new InMemoryJobStore());
    private final GuardedJobStore store = new GuardedJobStore(timed, redis);

    /** A store whose every call advances the clock by {@link #callNanos}, then throws {@link #fail} if set. */
    private final class Timed implements JobStore {
        final JobStore delegate;
        final AtomicInteger calls = new AtomicInteger();
        volatile long callNanos = Duration.ofMillis(2).toNanos();
        volatile RuntimeException fail;

        Timed(JobStore delegate) { this.delegate = delegate; }

        private void step() {
            calls.incrementAndGet();
            now.addAndGet(callNanos);
            if (fail != null) throw fail;
        }

        @Override public void create(JobRecord job) { step(); delegate.create(job); }
        @Override public Optional<JobRecord> get(String tenant, String jobId) { step(); return delegate.get(tenant, jobId); }
        @Override public Optional<String> tenantOf(String jobId) { step(); return delegate.tenantOf(jobId); }
        @Override public Transition transition(JobRecord next, Set<JobState> from) { step(); return delegate.transition(next, from); }
        @Override public void markEventSent(JobRecord job) { step(); delegate.markEventSent(job); }
        @Override public boolean eventSent(JobRecord job) { step(); return delegate.eventSent(job); }
        @Override public Page list(String tenant, String cursor, int limit, long maxBytes) { step(); return delegate.list(tenant, cursor, limit, maxBytes); }
    }

    @Test
    void callsPassThroughAndCountAsSuccesses() {
        assertThat(store.tenantOf("j1")).isEmpty();
        assertThat(store.get("acme", "j1")).isEmpty();
        assertThat(redis.getMetrics().getNumberOfSuccessfulCalls()).isEqualTo(2);
        assertThat(redis.getMetrics().getNumberOfSlowCalls()).isZero();
    }

    @Test
    void aRefusedCommandPassesThroughUncountedAndNeverOpensTheBreaker() {
        timed.fail = new JedisDataException("ERR unknown command 'FCALL'");
        for (int i = 0; i < 50; i++) {
            assertThatThrownBy(() -> store.get("acme", "j1")).isSameAs(timed.fail);
        }
        assertThat(redis.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(redis.getMetrics().getNumberOfBufferedCalls()).as("neither failure nor success").isZero();
    }

    @Test
    void outagesOpenItAndItThenRefusesWithoutCallingRedis() {
        timed.fail = new JedisConnectionException("Connection reset");
        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> store.tenantOf("j1")).isInstanceOf(JedisConnectionException.class);
        }
        assertThat(redis.getState()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThatThrownBy(() -> store.tenantOf("j1")).isInstanceOf(CallNotPermittedException.class);
        assertThat(timed.calls).hasValue(5);
    }

    @Test
    void slowCallsByTheBreakersClockOpenIt() {
        timed.callNanos = Duration.ofSeconds(3).toNanos();
        for (int i = 0; i < 5; i++) assertThat(store.tenantOf("j" + i)).isEmpty();
        assertThat(redis.getMetrics().getNumberOfSlowSuccessfulCalls()).isEqualTo(5);
        assertThat(redis.getState()).isEqualTo(CircuitBreaker.State.OPEN);
    }
}
