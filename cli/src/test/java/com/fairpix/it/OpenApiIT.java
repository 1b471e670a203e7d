package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.autoscaler.Autoscaler;
import com.fairpix.autoscaler.AutoscalerService;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.ingest.IngestApi;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI 3.1 documents of the ingest-api and the autoscaler: valid (swagger-parser, in
 * {@link OpenApiContract}), served at {@code /openapi.json} and {@code /openapi.yaml}, and in step
 * with the routes each service really registers: a route without an operation fails, and so does an
 * operation without a route. (Every exchange of the integration tests' {@code Farm.Client} is
 * checked against the ingest's document as it happens: {@code Farm.Client.send}.)
 */
class OpenApiIT {

    @Test
    void everyRouteOfTheIngestAndTheAutoscalerIsDocumentedAndEveryOperationIsARoute() throws Exception {
        FairpixConfig config = Farm.config().with(Setting.AUTOSCALER_POOLS, "gpu").with(Setting.AUTOSCALER_ACTUATOR, "dry-run");
        try (IngestApi ingest = IngestApi.start(config)) {
            Autoscaler autoscaler = AutoscalerService.start(config, Path.of(System.getProperty("fairpix.jar", "fairpix.jar")), 0);
            try {
                List<String> problems = new ArrayList<>();
                compare("ingest", ingest.routes(), problems);
                compare("autoscaler", autoscaler.routes(), problems);
                assertThat(problems).as("routes vs OpenAPI operations").isEmpty();
                assertThat(ingest.routes()).as("the ingest serves its tenant and admin API").hasSizeGreaterThan(20);

                for (int port : List.of(ingest.port(), autoscaler.port())) {
                    HttpResponse<String> json = get(port, "/openapi.json");
                    assertThat(json.statusCode()).isEqualTo(200);
                    assertThat(json.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
                    JsonNode doc = Json.mapper().readTree(json.body());
                    assertThat(doc.path("openapi").asText()).startsWith("3.1");
                    assertThat(doc.path("paths").size()).isGreaterThan(5);
                    HttpResponse<String> yaml = get(port, "/openapi.yaml");
                    assertThat(yaml.statusCode()).isEqualTo(200);
                    assertThat(yaml.body()).contains("openapi: 3.1");
                }

                // A few answers most tests never see, through the checked client: each must be as documented.
                Farm.Client client = new Farm.Client(ingest.port());
                String key = client.createTenant(Farm.tenantId("it-openapi"), Map.of());
                assertThat(client.get(key, "/v1/jobs/job_doesnotexist").statusCode()).isEqualTo(404);
                assertThat(client.get("fp_wrong", "/v1/jobs").statusCode()).isEqualTo(401);
                assertThat(client.get(key, "/v1/jobs").statusCode()).isEqualTo(200);
                assertThat(client.submitRaw(key, "not an image".getBytes(), "image/jpeg", Farm.SPEC).statusCode()).isBetween(400, 499);
                assertThat(client.send("GET", "/admin/v1/status", null).statusCode()).isEqualTo(200);
                assertThat(client.send("GET", "/admin/v1/tenants?limit=2", null).statusCode()).isEqualTo(200);
                assertThat(OpenApiContract.of("ingest").checked.get()).isGreaterThanOrEqualTo(7);
            } finally {
                autoscaler.close();
            }
        }
    }

    private static void compare(String service, List<String> routes, List<String> problems) {
        OpenApiContract contract = OpenApiContract.of(service);
        TreeSet<String> served = new TreeSet<>();
        for (String route : routes) {
            String method = route.substring(0, route.indexOf(' '));
            String path = route.substring(route.indexOf(' ') + 1);
            served.add(method + " " + path);
            if (!contract.api().getPaths().containsKey(path) || contract.operation(method, path.replaceAll("\\{[^/}]+}", "x")) == null) {
                problems.add(service + ": " + route + " is served but not in the OpenAPI document");
            }
        }
        contract.api().getPaths().forEach((path, item) -> item.readOperationsMap().forEach((method, op) -> {
            if (!served.contains(method.name() + " " + path)) problems.add(service + ": " + method + " " + path + " (" + op.getOperationId() + ") is documented but not served");
        }));
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

}
