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
import com.fasterxml.jackson.databind.JsonNode;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The operator kit under {@code deploy/} against a real Prometheus (Debian package
 * {@code prometheus} 2.42, installed by {@code scripts/stack up}): {@code promtool} checks the
 * scrape config and the rules and runs the rules' unit tests; a Prometheus started with
 * {@code deploy/prometheus/prometheus.yml}'s shape (this farm's ports, 1 s intervals) scrapes the
 * ingest, a worker, the webhook dispatcher and the autoscaler; the recording rules' values are
 * asserted after real jobs; and every query of {@code deploy/grafana/fairpix.json} returns series
 * from what it scraped (so no panel names a metric the farm does not export).
 */
class PrometheusIT {
    static final Path DEPLOY = Path.of("..", "deploy");
    static final Pattern METRIC = Pattern.compile("\\bfairpix(?::[a-z0-9_]+)+|\\bfairpix_[a-z0-9_]+");

    @Test
    void prometheusScrapesEveryServiceTheRulesRecordAndEveryDashboardQueryResolves() throws Exception {
        String promtool = MetricsLintIT.executable("promtool");
        String prometheus = MetricsLintIT.executable("prometheus");
        Path prom = DEPLOY.resolve("prometheus");
        assertThat(run(prom, promtool, "check", "rules", "rules.yml")).contains("SUCCESS");
        assertThat(run(prom, promtool, "test", "rules", "rules_test.yml")).contains("SUCCESS");

        // As shipped (backlog shedding on, so the backlog gauges exist), with a dry-run autoscaler.
        FairpixConfig config = Farm.shippedDefaults().with(Setting.AUTOSCALER_POOLS, "cpu").with(Setting.AUTOSCALER_ACTUATOR, "dry-run")
                .with(Setting.AUTOSCALER_INTERVAL_SECONDS, "1");
        Path dir = Files.createTempDirectory("fairpix-prometheus-it");
        Process server = null;
        try (IngestApi ingest = IngestApi.start(config)) {
            Worker worker = Worker.start(config.with(Setting.WORKER_PORT, "0"), 0);
            WebhooksService webhooks = WebhooksService.start(config, 0);
            Autoscaler autoscaler = AutoscalerService.start(config, Path.of(System.getProperty("fairpix.jar", "fairpix.jar")), 0);
            try {
                // The shipped config with this farm's ports, and 1 s intervals so the test does not wait 15 s a step.
                String yml = Files.readString(prom.resolve("prometheus.yml"))
                        .replace("127.0.0.1:8080", "127.0.0.1:" + (ingest.metricsPort() > 0 ? ingest.metricsPort() : ingest.port()))
                        .replace("127.0.0.1:8081", "127.0.0.1:" + worker.httpPort())
                        .replace("127.0.0.1:8083", "127.0.0.1:" + webhooks.httpPort())
                        .replace("127.0.0.1:8082", "127.0.0.1:" + autoscaler.port())
                        .replace("15s", "1s");
                Files.writeString(dir.resolve("prometheus.yml"), yml);
                Files.writeString(dir.resolve("rules.yml"), Files.readString(prom.resolve("rules.yml")).replace("interval: 15s", "interval: 1s"));
                assertThat(run(dir, promtool, "check", "config", "prometheus.yml")).contains("SUCCESS");
                int port;
                try (ServerSocket s = new ServerSocket(0)) {
                    port = s.getLocalPort();
                }
                server = new ProcessBuilder(prometheus, "--config.file=" + dir.resolve("prometheus.yml"), "--web.listen-address=127.0.0.1:" + port,
                        "--storage.tsdb.path=" + dir.resolve("data"), "--storage.tsdb.retention.time=1h")
                        .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
                String base = "http://127.0.0.1:" + port;
                await("Prometheus ready", Duration.ofSeconds(30), () -> get(base + "/-/ready").statusCode() == 200);
                await("all four targets up", Duration.ofSeconds(30), () -> {
                    JsonNode targets = Json.mapper().readTree(get(base + "/api/v1/targets").body()).path("data").path("activeTargets");
                    int up = 0;
                    for (JsonNode t : targets) if (t.path("health").asText().equals("up")) up++;
                    return up == 4;
                });

                // Traffic: two batches of jobs (a rate needs the counter to move between scrapes) and refusals.
                Farm.Client client = new Farm.Client(ingest.port());
                String busy = Farm.tenantId("it-prom");
                String busyKey = client.createTenant(busy, Map.of("rate", 100, "burst", 100));
                String capped = Farm.tenantId("it-prom-capped");
                String cappedKey = client.createTenant(capped, Map.of("rate", 0.01, "burst", 1.5 * Farm.cost(config, Farm.smallJpeg(320, 240, 100), Farm.SPEC))); // one job fits
                for (int batch = 0; batch < 2; batch++) {
                    List<String> ids = new ArrayList<>();
                    for (int i = 0; i < 4; i++) {
                        HttpResponse<String> r = client.submitRaw(busyKey, Farm.smallJpeg(320, 240, batch * 10 + i), "image/jpeg", Farm.SPEC);
                        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                        ids.add(Json.mapper().readTree(r.body()).get("id").asText());
                    }
                    for (int i = 0; i < 3; i++) client.submitRaw(cappedKey, Farm.smallJpeg(320, 240, 100 + i), "image/jpeg", Farm.SPEC);
                    for (String id : ids) assertThat(client.awaitTerminal(busyKey, id, Duration.ofSeconds(60)).get("state").asText()).isEqualTo("DONE");
                    Thread.sleep(3_000); // a few scrapes between the batches
                }

                // Jobs waiting in the worker, so the queue-age series exist (they are there only while a job waits).
                String slow = Farm.tenantId("it-prom-slow");
                String slowKey = client.createTenant(slow, Map.of("rate", 1000, "burst", 1000));
                byte[] big = FloodIT.smoothJpeg(FloodIT.FLOOD_WIDTH, FloodIT.FLOOD_HEIGHT);
                List<String> waiting = new ArrayList<>();
                for (int i = 0; i < 24; i++) {
                    HttpResponse<String> r = client.submitRaw(slowKey, big, "image/jpeg", FloodIT.FLOOD_SPEC);
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                    waiting.add(Json.mapper().readTree(r.body()).get("id").asText());
                }
                await("a waiting job's queue age recorded", Duration.ofSeconds(30), () -> !query(base, "fairpix:tenant_queue_age_seconds:max").path("data").path("result").isEmpty());

                await("the recording rule shows the jobs", Duration.ofSeconds(30),
                        () -> value(query(base, "fairpix:jobs_completed:rate1m{pool=\"cpu\"}")) > 0);
                double completed = value(query(base, "fairpix:jobs_completed:rate1m{pool=\"cpu\"}"));
                double refused = value(query(base, "fairpix:quota_rejections:rate1m{tenant=\"" + capped + "\",reason=\"rate\"}"));
                double p99 = value(query(base, "fairpix:job_queue_wait_seconds:p99_5m{tenant=\"" + busy + "\"}"));
                System.out.printf("[PrometheusIT] fairpix:jobs_completed:rate1m{pool=cpu} = %.3f jobs/s, quota rejections of %s = %.3f/s, p99 queue wait of %s = %.3f s%n",
                        completed, capped, refused, busy, p99);
                // 8 jobs (then 24 more) in the minute's window: rate() extrapolates over the samples it has; some, never tens per second.
                assertThat(completed).isGreaterThan(0).isLessThan(10.0);
                assertThat(refused).as("the capped tenant's 429s").isPositive();
                assertThat(p99).as("p99 queue wait, seconds").isBetween(0.0, 60.0);

                // Every dashboard query returns series from what was scraped.
                Set<String> names = new TreeSet<>();
                Json.mapper().readTree(get(base + "/api/v1/label/__name__/values").body()).path("data").forEach(n -> names.add(n.asText()));
                JsonNode dashboard = Json.mapper().readTree(DEPLOY.resolve("grafana/fairpix.json").toFile());
                List<String> problems = new ArrayList<>();
                int queries = 0;
                for (JsonNode panel : dashboard.path("panels")) {
                    for (JsonNode target : panel.path("targets")) {
                        String expr = target.path("expr").asText();
                        queries++;
                        Matcher m = METRIC.matcher(expr);
                        while (m.find()) if (!names.contains(m.group())) problems.add(panel.path("title").asText() + ": " + m.group() + " is not exported");
                        JsonNode r = query(base, expr);
                        if (!r.path("status").asText().equals("success")) problems.add(panel.path("title").asText() + ": " + expr + " -> " + r);
                        else if (r.path("data").path("result").isEmpty()) problems.add(panel.path("title").asText() + ": " + expr + " returns no series");
                    }
                }
                System.out.printf("[PrometheusIT] %d dashboard queries checked; fairpix series scraped: %s%n", queries,
                        names.stream().filter(n -> n.startsWith("fairpix")).toList());
                assertThat(queries).isGreaterThanOrEqualTo(15);
                assertThat(problems).as("dashboard queries").isEmpty();
                for (String id : waiting) client.awaitTerminal(slowKey, id, Duration.ofSeconds(120));
            } finally {
                autoscaler.close();
                webhooks.close();
                worker.stop(Duration.ofSeconds(10));
            }
        } finally {
            if (server != null) {
                server.destroy();
                if (!server.waitFor(10, TimeUnit.SECONDS)) server.destroyForcibly();
            }
        }
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static void await(String what, Duration timeout, Check check) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                if (check.ok()) return;
            } catch (java.io.IOException e) {
                // not up yet
            }
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(250);
        }
    }

    static HttpResponse<String> get(String url) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode query(String base, String expr) throws Exception {
        return Json.mapper().readTree(get(base + "/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8)).body());
    }

    /** The first sample's value of an instant query; NaN when it returned none. */
    static double value(JsonNode r) {
        JsonNode result = r.path("data").path("result");
        return result.isEmpty() ? Double.NaN : Double.parseDouble(result.get(0).path("value").get(1).asText());
    }

    static String run(Path dir, String... command) throws Exception {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + ":\n" + out).isZero();
        return out;
    }
}
