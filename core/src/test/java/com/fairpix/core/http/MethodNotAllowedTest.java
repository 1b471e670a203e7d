package com.fairpix.core.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A known path with a method it does not take is 405 with Allow (RFC 9110 §15.5.6), not 404. */
class MethodNotAllowedTest {
    @Test
    void aWrongMethodOnAKnownPathIs405WithAllow() throws Exception {
        Javalin app = ServiceHttp.create(ServiceHttp.newRegistry(), Map.of(), MetricsAccess.OPEN, c -> {})
                .get("/v1/jobs", ctx -> ctx.result("list")).post("/v1/jobs", ctx -> ctx.status(202))
                .start("127.0.0.1", 0);
        try {
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> put = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/v1/jobs"))
                    .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(put.statusCode()).isEqualTo(405);
            assertThat(put.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
            assertThat(put.body()).contains("method-not-allowed");
            assertThat(put.headers().firstValue("Allow")).hasValueSatisfying(v -> assertThat(v).contains("GET").contains("POST"));
            // An unknown path stays 404.
            HttpResponse<String> nowhere = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/v1/nowhere"))
                    .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(nowhere.statusCode()).isEqualTo(404);
        } finally {
            app.stop();
        }
    }
}
