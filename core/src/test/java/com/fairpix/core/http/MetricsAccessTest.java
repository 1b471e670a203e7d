package com.fairpix.core.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.config.FairpixConfig;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** /metrics where and for whom the setting says (real servers on port 0). */
class MetricsAccessTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();

    static HttpResponse<String> get(int port, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"));
        if (token != null) b.header("Authorization", "Bearer " + token);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aTokenGuardsMetricsOnTheServicePort() throws Exception {
        PrometheusMeterRegistry registry = ServiceHttp.newRegistry();
        Javalin app = ServiceHttp.create(registry, Map.of(), new MetricsAccess("s3cret-metrics-token", -1), c -> {}).start("127.0.0.1", 0);
        try {
            HttpResponse<String> none = get(app.port(), null);
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
            assertThat(get(app.port(), "wrong").statusCode()).isEqualTo(401);
            HttpResponse<String> ok = get(app.port(), "s3cret-metrics-token");
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).contains("jvm_memory_used_bytes");
        } finally {
            app.stop();
        }
    }

    @Test
    void aSeparatePortTakesMetricsOffTheServicePort() throws Exception {
        PrometheusMeterRegistry registry = ServiceHttp.newRegistry();
        MetricsAccess access = new MetricsAccess("", 0);
        Javalin app = ServiceHttp.create(registry, Map.of(), access, c -> {}).start("127.0.0.1", 0);
        Javalin metrics = access.start(registry, "127.0.0.1");
        try {
            assertThat(get(app.port(), null).statusCode()).isEqualTo(404);
            assertThat(get(metrics.port(), null).statusCode()).isEqualTo(200);
        } finally {
            metrics.stop();
            app.stop();
        }
    }

    @Test
    void theDefaultIsOpenOnTheServicePortAndBadPortsAreRefused() {
        assertThat(MetricsAccess.OPEN.onServicePort()).isTrue();
        assertThat(MetricsAccess.OPEN.start(ServiceHttp.newRegistry(), "127.0.0.1")).isNull();
        // metrics.port's range is its setting's constraint, checked on every load.
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_METRICS_PORT", "70000"), Map.of())).hasMessageContaining("FAIRPIX_METRICS_PORT");
    }
}
