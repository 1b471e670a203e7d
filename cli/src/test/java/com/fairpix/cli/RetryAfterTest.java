package com.fairpix.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The CLI's reads honour Retry-After as its submissions do: a tenant's read budget (429 too-many-reads) waits, it does not fail a wait. */
class RetryAfterTest {
    private HttpServer server;
    private final AtomicInteger calls = new AtomicInteger();
    private volatile int refusals;
    private volatile String retryAfter = "1";

    @BeforeEach
    void start() throws Exception {
        server = StubHttp.start("/", exchange -> {
            boolean refuse = calls.incrementAndGet() <= refusals;
            byte[] body = (refuse ? "{\"type\":\"https://fairpix.dev/problems/too-many-reads\",\"title\":\"Too many reads\",\"status\":429}" : "{\"state\":\"DONE\"}")
                    .getBytes(StandardCharsets.UTF_8);
            if (refuse && retryAfter != null) exchange.getResponseHeaders().add("Retry-After", retryAfter);
            StubHttp.respond(exchange, refuse ? 429 : 200, refuse ? "application/problem+json" : "application/json", body);
        });
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private ApiClient client() {
        return new ApiClient(StubHttp.url(server), "k");
    }

    @Test
    void aReadRefusedWithRetryAfterIsTriedAgainAfterIt() throws Exception {
        refusals = 1;
        long started = System.nanoTime();
        assertThat(client().get("/v1/jobs/j").path("state").asText()).isEqualTo("DONE");
        assertThat(calls.get()).isEqualTo(2);
        assertThat((System.nanoTime() - started) / 1e9).as("waited the Retry-After").isGreaterThanOrEqualTo(0.9);
        calls.set(0);
        assertThat(new String(client().download("/v1/jobs/j/results/thumb"), StandardCharsets.UTF_8)).contains("DONE");
        assertThat(calls.get()).as("a download too").isEqualTo(2);
    }

    @Test
    void aRefusalWithoutRetryAfterIsFinal() {
        refusals = 1;
        retryAfter = null;
        assertThatThrownBy(() -> client().get("/v1/jobs/j")).isInstanceOf(ApiClient.ApiException.class).hasMessageContaining("429");
        assertThat(calls.get()).isEqualTo(1);
    }
}
