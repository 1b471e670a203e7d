package com.fairpix.ingest.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.error.RetryLater;
import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.http.Problems;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.time.ManualClock;
import com.fairpix.ingest.admission.internal.FailoverAdmission;
import com.fairpix.ingest.admission.internal.LocalAdmission;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * What a node answers while its shared store is away, and the stated over-admission bound: with
 * N nodes failing open, a tenant gets at most {@code burst + rate × T} in an outage of T seconds
 * across the farm (each node holds rate/N and burst/N).
 */
class FailoverAdmissionTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-30T08:00:00Z"));

    /** A shared store that is down until {@code up} is set, then behaves as a one-node limiter. */
    static final class Flaky implements Admission {
        volatile boolean up;
        final LocalAdmission inner;
        int calls;

        Flaky(AdmissionConfig config, ManualClock clock) { inner = new LocalAdmission(config, clock); }

        @Override public Decision decide(Tenant t, String pool, long cost, String jobId) {
            calls++;
            if (!up) throw new JedisConnectionException("Connection refused");
            return inner.decide(t, pool, cost, jobId);
        }
        @Override public void charge(Tenant t, long cost) { if (!up) throw new JedisConnectionException("down"); inner.charge(t, cost); }
        @Override public void release(String t, String j) { if (!up) throw new JedisConnectionException("down"); inner.release(t, j); }
    }

    /**
     * A refused command (here the script's own error) is a bug, not an outage: it reaches the
     * caller (a 500 that is logged), and the node does not switch to per-node budgets in silence.
     */
    @Test
    void aScriptErrorIsNotAnOutageAndDoesNotFallBack() {
        AdmissionConfig config = AdmissionConfig.defaults().withRedisDown(AdmissionConfig.RedisDown.OPEN, 2);
        Admission broken = new Admission() {
            @Override public Decision decide(Tenant t, String pool, long cost, String jobId) {
                throw new redis.clients.jedis.exceptions.JedisDataException("ERR user_script:12: attempt to compare nil with number");
            }
            @Override public void charge(Tenant t, long cost) { throw new redis.clients.jedis.exceptions.JedisDataException("ERR user_script:12"); }
            @Override public void release(String t, String j) {}
        };
        FailoverAdmission node = new FailoverAdmission(broken, config, clock);
        Tenant t = AdmissionContract.tenant("fo-bug", 10, 10);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> node.decide(t, Limits.nano(1), null))
                .isInstanceOf(redis.clients.jedis.exceptions.JedisDataException.class);
        assertThat(node.degraded()).as("still on the shared limiter").isFalse();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> node.charge(t, Limits.nano(1)))
                .isInstanceOf(redis.clients.jedis.exceptions.JedisDataException.class);
    }

    @Test
    void failOpenAdmitsOnTheLocalShareAndRecoversWhenRedisIsBack() {
        AdmissionConfig config = AdmissionConfig.defaults().withRedisDown(AdmissionConfig.RedisDown.OPEN, 2);
        Flaky store = new Flaky(config, clock);
        FailoverAdmission node = new FailoverAdmission(store, config, clock);
        Tenant t = AdmissionContract.tenant("fo-open", 10, 10);
        Decision d = node.decide(t, Limits.nano(1), null);
        assertThat(d.allowed()).isTrue();
        assertThat(d.fallback()).isTrue();
        // Local share: burst 10 / 2 nodes = 5 in all.
        int ok = 1;
        for (int i = 0; i < 10; i++) if (node.decide(t, Limits.nano(1), null).allowed()) ok++;
        assertThat(ok).isEqualTo(5);
        assertThat(store.calls).as("Redis is retried once per interval, not per request").isEqualTo(1);
        store.up = true;
        clock.advance(Duration.ofSeconds(1));
        Decision shared = node.decide(t, Limits.nano(1), null);
        assertThat(shared.fallback()).as("decisions are shared again").isFalse();
        assertThat(node.degraded()).isFalse();
    }

    @Test
    void failClosedAnswers503WithRetryAfter() {
        AdmissionConfig config = AdmissionConfig.defaults().withRedisDown(AdmissionConfig.RedisDown.CLOSED, 1);
        FailoverAdmission node = new FailoverAdmission(new Flaky(config, clock), config, clock);
        assertThatThrownBy(() -> node.decide(AdmissionContract.tenant("fo-closed", 10, 10), Limits.nano(1), null))
                .isInstanceOfSatisfying(RetryLater.class, e -> {
                    ApiProblem p = Problems.of(e);
                    assertThat(p.status()).isEqualTo(503);
                    assertThat(p.headers()).containsEntry("Retry-After", "1");
                });
    }

    @Test
    void nNodesFailingOpenAdmitAtMostBurstPlusRateTimesTheOutage() {
        int n = 4;
        AdmissionConfig config = AdmissionConfig.defaults().withRedisDown(AdmissionConfig.RedisDown.OPEN, n);
        FailoverAdmission[] nodes = new FailoverAdmission[n];
        for (int i = 0; i < n; i++) nodes[i] = new FailoverAdmission(new Flaky(config, clock), config, clock);
        Tenant t = AdmissionContract.tenant("fo-bound", 20, 40);
        int ok = 0;
        int seconds = 10;
        for (int ms = 0; ms < seconds * 1000; ms += 5) {
            for (FailoverAdmission node : nodes) if (node.decide(t, Limits.nano(1), null).allowed()) ok++;
            clock.advance(Duration.ofMillis(5));
        }
        assertThat(ok).isLessThanOrEqualTo(40 + 20 * seconds).isGreaterThanOrEqualTo(20 * seconds);
    }
}
