package com.fairpix.core.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.javalin.Javalin;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A service's OpenAPI 3.1 document, kept as YAML on the classpath ({@code /openapi/<name>.yaml})
 * and served unauthenticated at {@code GET /openapi.yaml} and, converted once, {@code GET /openapi.json}.
 * The integration tests validate the document and the services' real traffic against it.
 */
public final class OpenApiDocument {
    private final String yaml;
    private final String json;

    private OpenApiDocument(String yaml, String json) {
        this.yaml = yaml;
        this.json = json;
    }

    /**
     * @param resource classpath resource, e.g. {@code /openapi/ingest.yaml}
     * @throws IllegalStateException when it is missing or not YAML
     */
    public static OpenApiDocument load(String resource) {
        try (InputStream in = OpenApiDocument.class.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalStateException(resource + " missing from the classpath");
            String yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            JsonNode tree = new ObjectMapper(new YAMLFactory()).readTree(yaml);
            return new OpenApiDocument(yaml, new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(tree));
        } catch (IOException e) {
            throw new UncheckedIOException("OpenAPI document " + resource + " unreadable", e);
        }
    }

    /** Registers {@code GET /openapi.yaml} and {@code GET /openapi.json} on {@code app}. */
    public OpenApiDocument serve(Javalin app) {
        app.get("/openapi.yaml", ctx -> ctx.contentType("application/yaml").result(yaml));
        app.get("/openapi.json", ctx -> ctx.contentType("application/json").result(json));
        return this;
    }

    public String yaml() { return yaml; }

    public String json() { return json; }
}
