package com.fairpix.core.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Tags;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** One start-up for every service: real servers on port 0. */
class ServiceBootstrapTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();

    static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesItsRoutesHealthAndMetricsOnOnePort() throws Exception {
        AtomicBoolean redisUp = new AtomicBoolean(true);
        ServiceBootstrap service = ServiceBootstrap.create(ServiceBootstrapTest.class, Tags.of("pool", "cpu"))
                .ready("redis", redisUp::get)
                .getJson("/health/formats", () -> Map.of("read", List.of("jpeg")))
                .routes(app -> app.get("/v1/hello", ctx -> ctx.result("hi")));
        service.registry().counter("fairpix.test.started").increment();
        try (ServiceBootstrap.Running running = service.start("127.0.0.1", 0, "test service started")) {
            int port = running.port();
            assertThat(get(port, "/v1/hello").body()).isEqualTo("hi");
            assertThat(get(port, "/health/formats").body()).isEqualTo("{\"read\":[\"jpeg\"]}");
            assertThat(get(port, "/health/live").statusCode()).isEqualTo(200);
            assertThat(get(port, "/health/ready").statusCode()).isEqualTo(200);
            redisUp.set(false);
            HttpResponse<String> down = get(port, "/health/ready");
            assertThat(down.statusCode()).isEqualTo(503);
            assertThat(down.body()).contains("\"redis\":\"DOWN\"");
            assertThat(get(port, "/metrics").body()).contains("fairpix_test_started_total{pool=\"cpu\"} 1.0");
            assertThat(running.metricsPort()).isEqualTo(-1);
            assertThat(running.routes()).contains("GET /v1/hello", "GET /health/ready", "GET /metrics");
        }
    }

    @Test
    void metricsGoWhereMetricsAccessSays() throws Exception {
        try (ServiceBootstrap.Running running = ServiceBootstrap.create(ServiceBootstrapTest.class, Tags.empty())
                .metrics(new MetricsAccess("", 0)).start("127.0.0.1", 0, "test service started")) {
            assertThat(get(running.port(), "/metrics").statusCode()).isEqualTo(404);
            assertThat(running.metricsPort()).isPositive();
            assertThat(get(running.metricsPort(), "/metrics").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aJsonBodyOverTheLimitIsRefused() throws Exception {
        try (ServiceBootstrap.Running running = ServiceBootstrap.create(ServiceBootstrapTest.class, Tags.empty()).maxRequestSize(16)
                .routes(app -> app.post("/echo", ctx -> ctx.result(ctx.body()))).start("127.0.0.1", 0, "test service started")) {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + running.port() + "/echo"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"far\":\"over sixteen bytes\"}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(413);
        }
    }

    @Test
    void closeStopsTheWorkThenTheListenersThenTheClientsAndGoesOnPastAFailure() throws Exception {
        List<String> closed = new CopyOnWriteArrayList<>();
        ServiceBootstrap.Running running = ServiceBootstrap.create(ServiceBootstrapTest.class, Tags.empty())
                .stopFirst(() -> closed.add("consumer"), () -> {
                    closed.add("scheduler");
                    throw new IllegalStateException("scheduler stuck");
                })
                .closeLast(() -> closed.add("kafka"), () -> closed.add("redis"))
                .start("127.0.0.1", 0, "test service started");
        int port = running.port();
        assertThatThrownBy(running::close).isInstanceOf(IllegalStateException.class).hasMessage("scheduler stuck");
        assertThat(closed).containsExactly("consumer", "scheduler", "kafka", "redis");
        assertThatThrownBy(() -> get(port, "/health/live")).as("the listener is stopped").isInstanceOf(java.io.IOException.class);
    }

    @Test
    void aNegativePortRunsWithoutHttp() {
        List<String> closed = new CopyOnWriteArrayList<>();
        ServiceBootstrap.Running running = ServiceBootstrap.create(ServiceBootstrapTest.class, Tags.empty())
                .closeLast(() -> closed.add("redis")).start("127.0.0.1", -1, "test service started");
        assertThat(running.port()).isEqualTo(-1);
        assertThat(running.routes()).isEmpty();
        running.close();
        assertThat(closed).containsExactly("redis");
    }
}
