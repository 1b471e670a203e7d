package com.fairpix.it;

import static com.fairpix.it.HostileFarm.THUMB;
import static com.fairpix.it.HostileFarm.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tenant A's malformed requests and specs over the limits: malformed multipart is 400, never 500; a
 * watermark of another tenant's object and an invalid Idempotency-Key are 400; a 1×1 PNG asking for
 * 268 megapixels is refused at submit (400 from the spec alone, 422 where only the source's size
 * tells); a spec over every limit lists every problem; problem details are UTF-8. B's service
 * around these attacks: {@link HostileFarm}.
 */
class HostileRequestsIT {
    @RegisterExtension
    static final HostileFarm farm = new HostileFarm("requests");

    @Test
    void malformedMultipartIs400NeverA500() throws Exception {
        String boundary = "hostile-parts";
        StringBuilder parts = new StringBuilder();
        for (int i = 0; i < 50; i++) parts.append("--").append(boundary).append("\r\nContent-Disposition: form-data; name=\"p").append(i).append("\"\r\n\r\nx\r\n");
        parts.append("--").append(boundary).append("--\r\n");
        assertProblem(400, "invalid-multipart", farm.postMultipart(farm.keyA(), "multipart/form-data; boundary=" + boundary, parts.toString()));
        assertProblem(400, "invalid-multipart", farm.postMultipart(farm.keyA(), "multipart/form-data", "junk"));
    }

    @Test
    void aWatermarkOfAnotherTenantAndAnInvalidIdempotencyKeyAre400() throws Exception {
        JsonNode p = assertProblem(400, "invalid-spec", farm.attacker().submitMultipart(farm.keyA(), farm.photoB(), "a.jpg",
                HostileFarm.watermarkOf(farm.tenantB())));
        assertThat(p.get("errors").toString()).contains("own prefix");
        assertProblem(400, "invalid-idempotency-key", farm.submitWithKey(farm.keyA(), farm.photoB(), THUMB, "x".repeat(300)));
    }

    @Test
    void aTinyPngAskingFor268MegapixelsIsRefusedAtSubmit() throws Exception {
        byte[] png = HostileFarm.onePixelPng();
        assertThat(png.length).isLessThan(100);
        JsonNode p = assertProblem(400, "invalid-spec", farm.attacker().submitRaw(farm.keyA(), png, "image/png", HostileFarm.FILL_268_MEGAPIXELS));
        assertThat(p.get("errors").toString()).contains("268435456 pixels");
        // Upscaling through contain is only known from the source's size: 422 at submit, before any work.
        String contain = "{\"variants\":{\"big\":[{\"op\":\"resize\",\"width\":16000,\"height\":16000},{\"op\":\"encode\",\"format\":\"png\",\"compression\":0}],"
                + "\"ok\":[{\"op\":\"resize\",\"width\":64}]}}";
        JsonNode q = assertProblem(422, "output-too-large", farm.attacker().submitMultipart(farm.keyA(), png, "a.png", contain));
        assertThat(q.get("errors")).hasSize(1);
        assertThat(q.get("errors").get(0).asText()).startsWith("variants.big: makes an image of 256000000 pixels");
    }

    @Test
    void aSpecOverEveryLimitListsEveryProblem() throws Exception {
        StringBuilder variants = new StringBuilder();
        for (int i = 0; i < 17; i++) variants.append(i == 0 ? "" : ",").append("\"v").append(i).append("\":[{\"op\":\"flip\"}]");
        String ops = "{\"op\":\"flip\"},".repeat(20);
        String spec = "{\"variants\":{" + variants + ",\"many\":[" + ops + "{\"op\":\"flop\"}],"
                + "\"blurry\":[{\"op\":\"blur\",\"sigma\":1000}],"
                + "\"marked\":[{\"op\":\"watermark\",\"key\":\"tenants/" + farm.tenantA() + "/" + "k".repeat(2000) + "\"}],"
                + "\"forged\":[{\"op\":\"watermark\",\"key\":\"tenants/" + farm.tenantA() + "/a.png\\r\\nINFO forged \\u001b[31m\"}]}}";
        JsonNode p = assertProblem(400, "invalid-spec", farm.attacker().submitMultipart(farm.keyA(), farm.photoB(), "a.jpg", spec));
        String errors = p.get("errors").toString();
        assertThat(p.get("errors").size()).isGreaterThanOrEqualTo(5);
        assertThat(errors).contains("at most 16 variants", "at most 16 operations", "sigma must be a number 0.3–50", "at most 512", "control characters");
    }

    @Test
    void problemDetailsAreUtf8() throws Exception {
        HttpResponse<byte[]> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + farm.port() + "/v1/jobs?spec="
                        + URLEncoder.encode("{\"variants\":{\"thümb✓\":[{\"op\":\"flip\"}]}}", StandardCharsets.UTF_8)))
                .header("Authorization", "Bearer " + farm.keyA()).header("Content-Type", "image/jpeg")
                .POST(HttpRequest.BodyPublishers.ofByteArray(farm.photoB())).build(), HttpResponse.BodyHandlers.ofByteArray());
        OpenApiContract.of("ingest").check("POST", "/v1/jobs", r.statusCode(), r.headers().firstValue("Content-Type").orElse(null),
                new String(r.body(), StandardCharsets.UTF_8));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains("thümb✓").doesNotContain("th?mb");
    }
}
