package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.autoscaler.Autoscaler;
import com.fairpix.autoscaler.AutoscalerService;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.webhooks.WebhooksService;
import com.fairpix.worker.Worker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code metrics.token} guards {@code /metrics} of the webhook dispatcher, the autoscaler and the
 * worker as it does the ingest's (their metrics name tenants too): 401 problem without the token or
 * with a wrong one, the exposition with it. Started as {@code fairpix webhooks}, {@code fairpix
 * autoscaler} and {@code fairpix worker} start them.
 */
class MetricsAccessIT {
    static final String TOKEN = "it-metrics-token-0123456789abcdef";
    static final HttpClient HTTP = HttpClient.newHttpClient();

    static HttpResponse<String> scrape(int port, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(10));
        if (token != null) b.header("Authorization", "Bearer " + token);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static void guarded(String service, int port) throws Exception {
        HttpResponse<String> none = scrape(port, null);
        assertThat(none.statusCode()).as(service + " /metrics without the token").isEqualTo(401);
        assertThat(none.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
        assertThat(scrape(port, "wrong").statusCode()).as(service + " /metrics with a wrong token").isEqualTo(401);
        HttpResponse<String> ok = scrape(port, TOKEN);
        assertThat(ok.statusCode()).as(service + " /metrics with the token").isEqualTo(200);
        assertThat(ok.body()).contains("# HELP");
    }

    @Test
    void theMetricsTokenGuardsTheWebhookDispatchersTheAutoscalersAndTheWorkersMetrics() throws Exception {
        FairpixConfig config = Farm.config().with(Setting.METRICS_TOKEN, TOKEN)
                .with(Setting.AUTOSCALER_POOLS, "gpu").with(Setting.AUTOSCALER_ACTUATOR, "dry-run");
        WebhooksService webhooks = WebhooksService.start(config, 0);
        try {
            guarded("webhooks", webhooks.httpPort());
        } finally {
            webhooks.stop(Duration.ofSeconds(1));
        }
        Worker worker = Worker.start(config.with(Setting.WORKER_POOL, "gpu").with(Setting.WORKER_PORT, "0"), 0);
        try {
            guarded("worker", worker.httpPort());
        } finally {
            worker.stop(Duration.ofSeconds(5));
        }
        Autoscaler autoscaler = AutoscalerService.start(config, Path.of(System.getProperty("fairpix.jar", "fairpix.jar")), 0);
        try {
            guarded("autoscaler", autoscaler.port());
        } finally {
            autoscaler.close();
        }
    }
}
