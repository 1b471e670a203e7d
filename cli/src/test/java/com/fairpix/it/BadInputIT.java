package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.Corpus;
import com.fairpix.core.json.Json;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Bad requests get a precise status and an RFC 9457 problem body, and nothing is stored or queued. */
class BadInputIT {
    @RegisterExtension static final Farm.Ingest farm = new Farm.Ingest();
    static String key;
    static byte[] photo;

    @BeforeAll
    static void start() throws Exception {
        key = farm.client().createTenant(Farm.tenantId("it-bad"), Map.of());
        photo = Files.readAllBytes(Corpus.required("cameratrap-photos/ocelot.jpg"));
    }

    @Test
    void noKeyIs401() throws Exception {
        assertProblem(farm.client().submitMultipart(null, photo, "a.jpg", Farm.SPEC), 401, "unauthorized");
    }

    @Test
    void anUnknownWellFormedKeyIs401() throws Exception {
        String unknown = com.fairpix.core.tenant.ApiKeys.generate();
        assertProblem(farm.client().submitMultipart(unknown, photo, "a.jpg", Farm.SPEC), 401, "unauthorized");
    }

    @Test
    void aMangledKeyIs401() throws Exception {
        // The last character changed (to 'x', or to 'y' where it was an 'x' already: 1 key in 62).
        char last = key.charAt(key.length() - 1);
        String mangled = key.substring(0, key.length() - 1) + (last == 'x' ? 'y' : 'x');
        assertProblem(farm.client().submitMultipart(mangled, photo, "a.jpg", Farm.SPEC), 401, "unauthorized");
    }

    @Test
    void nonImageBytesAre415EvenWithAnImageName() throws Exception {
        byte[] text = "just some text, not a picture".getBytes(StandardCharsets.UTF_8);
        assertProblem(farm.client().submitMultipart(key, text, "holiday.jpg", Farm.SPEC), 415, "unsupported-media-type");
    }

    @Test
    void anAnimatedGifIs422AndJpeg2000Is415() throws Exception {
        byte[] gif = Files.readAllBytes(Corpus.required("sharp-fixtures/rotating-squares.gif"));
        assertProblem(farm.client().submitRaw(key, gif, "image/gif", Farm.SPEC), 422, "animated");
        byte[] jp2 = Files.readAllBytes(Corpus.required("sharp-fixtures/relax.jp2"));
        assertProblem(farm.client().submitRaw(key, jp2, "image/jp2", Farm.SPEC), 415, "unsupported-media-type");
    }

    @Test
    void anInvalidSpecIs400ListingEveryProblem() throws Exception {
        String spec = "{\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":0},{\"op\":\"spin\"},{\"op\":\"encode\",\"format\":\"gif\",\"quality\":101}]}}";
        JsonNode body = assertProblem(farm.client().submitMultipart(key, photo, "a.jpg", spec), 400, "invalid-spec");
        assertThat(body.get("errors")).hasSizeGreaterThanOrEqualTo(4);
        assertThat(body.get("errors").toString()).contains("width", "unknown op 'spin'", "format", "quality");
    }

    @Test
    void aSpecThatIsNotJsonIs400() throws Exception {
        assertProblem(farm.client().submitMultipart(key, photo, "a.jpg", "{variants: nope"), 400, "invalid-spec");
    }

    @Test
    void aTruncatedHeaderIs422() throws Exception {
        byte[] headerOnly = new byte[] {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, (byte) 0xE0, 0x00, 0x10, 'J', 'F'};
        assertProblem(farm.client().submitMultipart(key, headerOnly, "a.jpg", Farm.SPEC), 422, "undecodable-header");
    }

    @Test
    void anUploadOverTheTenantsLimitIs413() throws Exception {
        String small = farm.client().createTenant(Farm.tenantId("it-small"), Map.of("maxUploadBytes", 100_000));
        assertProblem(farm.client().submitMultipart(small, photo, "a.jpg", Farm.SPEC), 413, "payload-too-large");
    }

    @Test
    void anotherTenantsJobIs404() throws Exception {
        HttpResponse<String> accepted = farm.client().submitMultipart(key, photo, "a.jpg", Farm.SPEC);
        assertThat(accepted.statusCode()).isEqualTo(202);
        String id = Json.mapper().readTree(accepted.body()).get("id").asText();
        String other = farm.client().createTenant(Farm.tenantId("it-other"), Map.of());
        assertProblem(farm.client().get(other, "/v1/jobs/" + id), 404, "not-found");
        assertProblem(farm.client().get(other, "/v1/jobs/" + id + "/results/thumb"), 404, "not-found");
        assertThat(farm.client().get(key, "/v1/jobs/" + id).statusCode()).isEqualTo(200);
    }

    /** Asserts an RFC 9457 problem answer: status, media type, type URI, title and detail; returns its body. */
    static JsonNode assertProblem(HttpResponse<String> response, int status, String slug) throws Exception {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(ct -> assertThat(ct).startsWith("application/problem+json"));
        JsonNode body = Json.mapper().readTree(response.body());
        assertThat(body.get("status").asInt()).isEqualTo(status);
        assertThat(body.get("type").asText()).isEqualTo("https://fairpix.dev/problems/" + slug);
        assertThat(body.get("title").asText()).isNotBlank();
        assertThat(body.get("detail").asText()).isNotBlank();
        return body;
    }
}
