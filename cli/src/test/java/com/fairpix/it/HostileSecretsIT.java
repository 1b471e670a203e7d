package com.fairpix.it;

import static com.fairpix.it.HostileFarm.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.ingest.IngestApi;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What an attacker could read or guess: admin reads never show a tenant's webhook secret (only create
 * and rotate do); {@code /metrics}, which names tenants, follows its token and port settings; a weak
 * admin token stops the ingest from starting. No tenant attacks the farm here, so B is not measured.
 */
class HostileSecretsIT {
    @RegisterExtension
    static final Farm.Ingest farm = new Farm.Ingest();

    @Test
    void adminReadsNeverShowAWebhookSecret() throws Exception {
        Farm.Client client = farm.client();
        String c = Farm.tenantId("it-hostile-c");
        HttpResponse<String> created = client.send("POST", "/admin/v1/tenants", Json.write(Map.of("id", c)));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(Json.mapper().readTree(created.body()).path("tenant").path("webhookSecret").asText()).as("shown once, on create").startsWith("whsec_");
        List<HttpResponse<String>> reads = List.of(
                client.send("GET", "/admin/v1/tenants?limit=1000", null),
                client.send("GET", "/admin/v1/tenants/" + c, null),
                client.send("PATCH", "/admin/v1/tenants/" + c, "{\"weight\":2}"),
                client.send("POST", "/admin/v1/tenants/" + c + "/suspend", null),
                client.send("POST", "/admin/v1/tenants/" + c + "/activate", null),
                client.send("DELETE", "/admin/v1/tenants/" + c, null));
        for (HttpResponse<String> r : reads) {
            assertThat(r.statusCode()).as(r.request().method() + " " + r.request().uri() + ": " + r.body()).isEqualTo(200);
            assertThat(r.body()).as(r.request().method() + " " + r.request().uri()).doesNotContain("webhookSecret\"", "whsec_");
        }
        assertThat(Json.mapper().readTree(reads.get(1).body()).get("webhookSecretSet").asBoolean()).isTrue();
    }

    @Test
    void metricsFollowTheirSettingAndAWeakAdminTokenStopsStartUp() throws Exception {
        assertThatThrownBy(() -> IngestApi.start(Farm.config().with(Setting.ADMIN_TOKEN, "change-me")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_ADMIN_TOKEN");
        String token = "metrics-" + UUID.randomUUID();
        try (IngestApi node = IngestApi.start(Farm.config().with(Setting.METRICS_TOKEN, token).with(Setting.METRICS_PORT, "0"))) {
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> onServicePort = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertProblem(404, "not-found", onServicePort);
            URI metrics = URI.create("http://127.0.0.1:" + node.metricsPort() + "/metrics");
            assertProblem(401, "unauthorized", http.send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString()));
            HttpResponse<String> scraped = Farm.checked("ingest", http.send(HttpRequest.newBuilder(metrics).header("Authorization", "Bearer " + token).build(),
                    HttpResponse.BodyHandlers.ofString()));
            assertThat(scraped.statusCode()).isEqualTo(200);
            assertThat(scraped.body()).contains("jvm_memory_used_bytes");
        }
    }
}
