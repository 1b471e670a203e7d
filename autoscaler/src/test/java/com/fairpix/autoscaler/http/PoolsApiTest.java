package com.fairpix.autoscaler.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.autoscaler.Autoscaler;
import com.fairpix.autoscaler.actuate.internal.DryRunActuator;
import com.fairpix.autoscaler.policy.PolicyConfig;
import com.fairpix.autoscaler.signal.PoolSignals;
import com.fairpix.core.http.ServiceHttp;
import com.fairpix.core.json.Json;
import com.fairpix.core.time.ManualClock;
import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The admin API /admin/v1/pools on the real HTTP server (port 0), dry-run actuator, scripted signals. */
class PoolsApiTest {
    static final String TOKEN = "test-admin-token";
    final HttpClient http = HttpClient.newHttpClient();
    final ManualClock clock = new ManualClock(Instant.parse("2026-11-30T00:00:00Z"));
    PrometheusMeterRegistry registry;
    Autoscaler autoscaler;
    String base;

    @BeforeEach
    void start() {
        Map<Integer, Long> lag = new LinkedHashMap<>();
        for (int p = 0; p < 8; p++) lag.put(p, 300L);
        Map<String, PolicyConfig> policies = new LinkedHashMap<>();
        policies.put("cpu", PolicyConfig.defaults("cpu"));
        policies.put("gpu", PolicyConfig.defaults("gpu"));
        registry = ServiceHttp.newRegistry();
        autoscaler = new Autoscaler(policies, (pool, now) -> PoolSignals.of(pool, now, 12.5, lag, 8, Map.of("acme", 300L)),
                new DryRunActuator(1), clock, registry);
        autoscaler.startHttp(registry, "127.0.0.1", 0, TOKEN, com.fairpix.core.http.MetricsAccess.OPEN);
        base = "http://127.0.0.1:" + autoscaler.port();
    }

    @AfterEach
    void stop() {
        autoscaler.close();
    }

    @Test
    void withoutTheAdminTokenEveryRouteIs401ProblemJson() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/admin/v1/pools")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith(ServiceHttp.PROBLEM_JSON));
    }

    @Test
    void statusShowsDesiredActualSignalsAndTheDecisionWithItsInputs() throws Exception {
        autoscaler.evaluate("cpu");
        JsonNode s = get("/admin/v1/pools/cpu");
        assertThat(s.get("mode").asText()).isEqualTo("auto");
        assertThat(s.get("desired").asInt()).isEqualTo(3);
        assertThat(s.get("actual").asInt()).isEqualTo(3);
        assertThat(s.at("/signals/lag").asLong()).isEqualTo(2400);
        assertThat(s.at("/signals/qps").asDouble()).isEqualTo(12.5);
        assertThat(s.at("/signals/topTenants/0/tenant").asText()).isEqualTo("acme");
        assertThat(s.at("/lastDecision/reason").asText()).isEqualTo("SCALE_OUT");
        assertThat(s.at("/lastDecision/inputs/proportional").asInt()).isEqualTo(24);
        assertThat(get("/admin/v1/pools").get("pools")).hasSize(2);
        assertThat(get("/admin/v1/pools/cpu/decisions").get("decisions")).hasSize(1);
        assertThat(registry.scrape()).contains("fairpix_autoscaler_desired_replicas{pool=\"cpu\"} 3.0")
                .contains("fairpix_autoscaler_decisions_total{pool=\"cpu\",reason=\"scale_out\"} 1.0");
    }

    @Test
    void setPinsTheSizeUntilResumeAndPauseHoldsIt() throws Exception {
        JsonNode s = send("PUT", "/admin/v1/pools/gpu/replicas", "{\"replicas\":4}", 200);
        assertThat(s.get("mode").asText()).isEqualTo("manual");
        assertThat(autoscaler.evaluate("gpu").desired()).isEqualTo(4);
        send("POST", "/admin/v1/pools/gpu/pause", "", 200);
        clock.advance(java.time.Duration.ofMinutes(10));
        assertThat(autoscaler.evaluate("gpu").reason().name()).isEqualTo("PAUSED");
        assertThat(get("/admin/v1/pools/gpu").get("actual").asInt()).isEqualTo(4);
        send("POST", "/admin/v1/pools/gpu/resume", "", 200);
        assertThat(get("/admin/v1/pools/gpu").get("mode").asText()).isEqualTo("auto");
        send("PUT", "/admin/v1/pools/gpu/replicas", "{\"replicas\":99}", 400);
    }

    @Test
    void policyPatchIsValidatedAndSwappedWhole() throws Exception {
        JsonNode p = send("PATCH", "/admin/v1/pools/cpu/policy", "{\"maxReplicas\":12,\"stabilizationSeconds\":60}", 200);
        assertThat(p.get("maxReplicas").asInt()).isEqualTo(12);
        assertThat(autoscaler.policy("cpu").stabilizationSeconds()).isEqualTo(60);
        JsonNode bad = send("PATCH", "/admin/v1/pools/cpu/policy", "{\"minReplicas\":20,\"nope\":1}", 400);
        assertThat(bad.get("errors").toString()).contains("unknown member 'nope'");
        assertThat(autoscaler.policy("cpu").maxReplicas()).isEqualTo(12);
        send("GET", "/admin/v1/pools/tpu", null, 404);
    }

    JsonNode get(String path) throws Exception {
        return send("GET", path, null, 200);
    }

    JsonNode send(String method, String path, String body, int expected) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + TOKEN)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(expected);
        return Json.mapper().readTree(r.body());
    }
}
