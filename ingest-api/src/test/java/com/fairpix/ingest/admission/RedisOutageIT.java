package com.fairpix.ingest.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.error.RetryLater;
import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.http.Problems;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.admission.internal.FailoverAdmission;
import com.fairpix.ingest.admission.internal.RedisAdmission;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * Redis stopped in the middle of the test: every request still gets an answer by the configured
 * policy (fail open on the local budget, or 503 + Retry-After), fast; Redis back: decisions are
 * shared again without a restart. Runs its own {@code redis-server} on a free port so that the
 * shared stack's Redis is never stopped.
 */
class RedisOutageIT {
    private Process server;
    private int port;
    private Path dir;

    private void startRedis() throws Exception {
        if (dir == null) dir = Files.createTempDirectory("fairpix-outage");
        server = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", dir.toString()).redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try (UnifiedJedis probe = Redis.connect("redis://127.0.0.1:" + port)) {
                if ("PONG".equals(probe.ping())) return;
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) throw new AssertionError("redis-server did not start: " + Files.readString(dir.resolve("redis.log")), e);
                Thread.sleep(20);
            }
        }
    }

    private void stopRedis() throws InterruptedException {
        server.destroy();
        server.waitFor();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null && server.isAlive()) stopRedis();
    }

    @Test
    void redisStoppedMidTestFailOpenThenSharedAgain() throws Exception {
        port = freePort();
        startRedis();
        Tenant t = AdmissionContract.tenant("outage-" + UUID.randomUUID().toString().substring(0, 8), 1000, 1000);
        AdmissionConfig open = AdmissionConfig.defaults().withRedisDown(AdmissionConfig.RedisDown.OPEN, 2);
        AdmissionConfig closed = AdmissionConfig.defaults().withRedisDown(AdmissionConfig.RedisDown.CLOSED, 2);
        try (UnifiedJedis redis = Redis.connect("redis://127.0.0.1:" + port)) {
            FailoverAdmission failOpen = new FailoverAdmission(new RedisAdmission(redis, open, System::nanoTime), open, Clock.systemUTC());
            FailoverAdmission failClosed = new FailoverAdmission(new RedisAdmission(redis, closed, System::nanoTime), closed, Clock.systemUTC());
            Decision before = failOpen.decide(t, Limits.nano(1), null);
            assertThat(before.allowed()).isTrue();
            assertThat(before.fallback()).isFalse();

            stopRedis();
            for (int i = 0; i < 50; i++) {
                long start = System.nanoTime();
                Decision d = failOpen.decide(t, Limits.nano(1), null);
                assertThat(d.fallback()).isTrue();
                assertThat(d.allowed()).isTrue(); // 50 ≤ the local share (burst 1000 / 2 nodes)
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("never a hung request").isLessThan(Duration.ofSeconds(3));
            }
            assertThatThrownBy(() -> failClosed.decide(t, Limits.nano(1), null))
                    .isInstanceOfSatisfying(RetryLater.class, e -> {
                        ApiProblem p = Problems.of(e);
                        assertThat(p.status()).isEqualTo(503);
                        assertThat(p.headers()).containsKey("Retry-After");
                    });

            startRedis(); // same port, empty (its script cache too)
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            Decision after;
            do {
                after = failOpen.decide(t, Limits.nano(1), null);
                if (after.fallback()) Thread.sleep(100); // the node retries Redis once per second
            } while (after.fallback() && System.nanoTime() < deadline);
            assertThat(after.fallback()).as("decisions are shared again").isFalse();
            assertThat(after.allowed()).isTrue();
            assertThat(failClosed.decide(t, Limits.nano(1), null).fallback()).isFalse();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
