package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.autoscaler.Autoscaler;
import com.fairpix.autoscaler.AutoscalerService;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import com.fairpix.webhooks.WebhooksService;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Every service's {@code /metrics} passes Prometheus' own linter, {@code promtool check metrics}
 * (Debian package {@code prometheus}, installed by {@code scripts/stack up}): HELP texts, counter
 * suffixes, base units, snake_case. Scraped after one job went through the farm (so the job,
 * tenant and admission families exist) and one was refused.
 */
class MetricsLintIT {

    @Test
    void promtoolCheckMetricsPassesOnIngestWorkerWebhooksAndAutoscaler() throws Exception {
        String promtool = executable("promtool");
        FairpixConfig config = Farm.config().with(Setting.AUTOSCALER_POOLS, "gpu").with(Setting.AUTOSCALER_ACTUATOR, "dry-run")
                .with(Setting.AUTOSCALER_INTERVAL_SECONDS, "1");
        try (IngestApi ingest = IngestApi.start(config)) {
            Worker worker = Worker.start(config.with(Setting.WORKER_PORT, "0"), 0);
            WebhooksService webhooks = WebhooksService.start(config, 0);
            Autoscaler autoscaler = AutoscalerService.start(config, Path.of(System.getProperty("fairpix.jar", "fairpix.jar")), 0);
            try {
                Farm.Client client = new Farm.Client(ingest.port());
                String tenant = Farm.tenantId("it-metrics");
                // A burst that holds one job of SPEC and not two.
                String key = client.createTenant(tenant, Map.of("rate", 0.1, "burst", 1.5 * Farm.cost(config, Farm.smallJpeg(320, 240, 1), Farm.SPEC)));
                HttpResponse<String> ok = client.submitRaw(key, Farm.smallJpeg(320, 240, 1), "image/jpeg", Farm.SPEC);
                assertThat(ok.statusCode()).as(ok.body()).isEqualTo(202);
                assertThat(client.submitRaw(key, Farm.smallJpeg(320, 240, 2), "image/jpeg", Farm.SPEC).statusCode()).as("over the burst").isEqualTo(429);
                var job = client.awaitTerminal(key, Json.mapper().readTree(ok.body()).get("id").asText(), Duration.ofSeconds(60));
                assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("DONE");
                Thread.sleep(2_000); // an autoscaler evaluation and a capacity refresh
                Map<String, Integer> ports = new LinkedHashMap<>();
                ports.put("ingest", ingest.metricsPort() > 0 ? ingest.metricsPort() : ingest.port());
                ports.put("worker", worker.httpPort());
                ports.put("webhooks", webhooks.httpPort());
                ports.put("autoscaler", autoscaler.port());
                StringBuilder problems = new StringBuilder();
                for (var e : ports.entrySet()) {
                    String text = scrape(e.getValue(), e.getKey());
                    assertThat(text).as(e.getKey() + " /metrics").contains("# HELP").contains("fairpix_");
                    String lint = check(promtool, text);
                    if (!lint.isEmpty()) problems.append("--- ").append(e.getKey()).append(":\n").append(lint);
                }
                assertThat(problems.toString()).as("promtool check metrics").isEmpty();
            } finally {
                autoscaler.close();
                webhooks.close();
                worker.stop(Duration.ofSeconds(10));
            }
        }
    }

    /** The path of {@code name} on PATH; fails under scripts/test (aborts elsewhere) when it is missing. */
    static String executable(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path p = Path.of(dir, name);
            if (java.nio.file.Files.isExecutable(p)) return p.toString();
        }
        String why = name + " is not on PATH: scripts/stack up installs it (Debian package prometheus)";
        if (System.getenv("FAIRPIX_REQUIRE_STACK") != null) Assertions.fail(why);
        Assumptions.abort(why);
        return null;
    }

    /** @param service the scraped service; the ingest's and the autoscaler's answers are held to their OpenAPI documents */
    static String scrape(int port, String service) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (service.equals("ingest") || service.equals("autoscaler")) Farm.checked(service, r);
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    /** promtool's findings on {@code exposition}; empty when clean (exit 0). */
    static String check(String promtool, String exposition) throws Exception {
        Process p = new ProcessBuilder(promtool, "check", "metrics").redirectErrorStream(true).start();
        try (var in = p.getOutputStream()) {
            in.write(exposition.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return p.exitValue() == 0 ? "" : out.isEmpty() ? "exit " + p.exitValue() + "\n" : out;
    }
}
