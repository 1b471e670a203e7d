package com.fairpix.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * A service's OpenAPI 3.1 document as a contract the integration tests hold the service to. The
 * document is parsed and validated by swagger-parser (its messages must be empty); an exchange is
 * checked against it: its route and method must be documented, its status documented for that
 * operation, its Content-Type one the response documents, and a JSON body valid against that
 * response's schema (JSON Schema 2020-12, validated by networknt's json-schema-validator). Our
 * code only finds the operation (path template and method) and the response; the validation is
 * the libraries'.
 */
final class OpenApiContract {
    private static final Map<String, OpenApiContract> LOADED = new ConcurrentHashMap<>();
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String resource;
    private final OpenAPI api;
    private final List<Route> routes = new ArrayList<>();
    private final Map<String, Schema> schemas = new ConcurrentHashMap<>();
    private final SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    final AtomicInteger checked = new AtomicInteger();

    record Route(String template, Pattern pattern, PathItem item) {}

    private OpenApiContract(String resource) {
        this.resource = resource;
        String yaml;
        try (InputStream in = OpenApiContract.class.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalStateException(resource + " missing from the test classpath");
            yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        options.setResolveFully(true);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(yaml, null, options);
        if (result.getOpenAPI() == null || (result.getMessages() != null && !result.getMessages().isEmpty())) {
            throw new AssertionError(resource + " is not a valid OpenAPI document: " + result.getMessages());
        }
        if (!result.getOpenAPI().getOpenapi().startsWith("3.1")) throw new AssertionError(resource + " is OpenAPI " + result.getOpenAPI().getOpenapi() + ", not 3.1");
        this.api = result.getOpenAPI();
        api.getPaths().forEach((template, item) -> routes.add(new Route(template,
                Pattern.compile(template.replaceAll("\\{[^/}]+}", "[^/]+")), item)));
        // Literal paths before templated ones (/admin/v1/tenants/{id}/webhooks/replay-failed before .../{deliveryId}).
        routes.sort((a, b) -> Long.compare(a.template().chars().filter(c -> c == '{').count(), b.template().chars().filter(c -> c == '{').count()));
    }

    /** The contract of {@code /openapi/<name>.yaml} (the service's jar on the test classpath), loaded and validated once. */
    static OpenApiContract of(String name) {
        return LOADED.computeIfAbsent("/openapi/" + name + ".yaml", OpenApiContract::new);
    }

    OpenAPI api() { return api; }

    /** The documented operation of {@code method} on {@code path}; null when none. */
    Operation operation(String method, String path) {
        for (Route r : routes) {
            if (!r.pattern().matcher(path).matches()) continue;
            Operation op = switch (method.toUpperCase(Locale.ROOT)) {
                case "GET" -> r.item().getGet();
                case "POST" -> r.item().getPost();
                case "PUT" -> r.item().getPut();
                case "PATCH" -> r.item().getPatch();
                case "DELETE" -> r.item().getDelete();
                case "HEAD" -> r.item().getHead();
                default -> null;
            };
            if (op != null) return op;
        }
        return null;
    }

    /** The path template documenting {@code path}; null when none. */
    String template(String path) {
        for (Route r : routes) if (r.pattern().matcher(path).matches()) return r.template();
        return null;
    }

    /**
     * Checks one exchange; returns what is wrong with it (empty: it conforms).
     *
     * @param contentType the response's Content-Type header (null: none)
     * @param body        the response body as text (binary bodies: pass null)
     */
    List<String> problems(String method, String path, int status, String contentType, String body) {
        checked.incrementAndGet();
        List<String> out = new ArrayList<>();
        String where = method + " " + path + " -> " + status;
        Operation op = operation(method, path);
        if (op == null) {
            out.add(where + ": no operation in " + resource);
            return out;
        }
        ApiResponse response = op.getResponses() == null ? null : op.getResponses().get(Integer.toString(status));
        if (response == null && op.getResponses() != null) response = op.getResponses().get(status / 100 + "XX");
        if (response == null && op.getResponses() != null) response = op.getResponses().get("default");
        if (response == null) {
            out.add(where + ": status not documented for " + op.getOperationId());
            return out;
        }
        boolean hasBody = body != null && !body.isEmpty();
        if (response.getContent() == null || response.getContent().isEmpty()) {
            if (hasBody && status != 204) out.add(where + ": a body, but " + op.getOperationId() + " documents none for " + status);
            return out;
        }
        if (!hasBody) return out;
        String media = contentType == null ? "" : contentType.split(";")[0].trim().toLowerCase(Locale.ROOT);
        MediaType documented = response.getContent().get(media);
        if (documented == null) {
            out.add(where + ": Content-Type '" + media + "' not among " + response.getContent().keySet() + " of " + op.getOperationId());
            return out;
        }
        if (media.endsWith("json")) validate(op.getOperationId() + " " + status + " " + media, documented, body, where, out);
        return out;
    }

    /** Adds to {@code out} what is wrong with a JSON {@code body} against {@code documented}'s schema (compiled once per {@code key}). */
    private void validate(String key, MediaType documented, String body, String where, List<String> out) {
        if (documented.getSchema() == null) return;
        try {
            JsonNode instance = JSON.readTree(body);
            Schema schema = schemas.computeIfAbsent(key, k -> {
                try {
                    return registry.getSchema(JSON.readTree(io.swagger.v3.core.util.Json31.mapper().writeValueAsString(documented.getSchema())));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            for (var error : schema.validate(instance)) out.add(where + ": " + error);
        } catch (IOException e) {
            out.add(where + ": body is not JSON (" + e.getMessage() + ")");
        }
    }

    /**
     * What is wrong with a request the service accepted (2xx): its JSON body must be valid against
     * the operation's documented request body (a refused request may be anything: tests send bad
     * ones on purpose, and the answer is checked instead).
     */
    List<String> requestProblems(String method, String path, String contentType, String body) {
        List<String> out = new ArrayList<>();
        Operation op = operation(method, path);
        if (op == null || body == null || body.isEmpty()) return out;
        String where = method + " " + path + " (request)";
        if (op.getRequestBody() == null || op.getRequestBody().getContent() == null) {
            out.add(where + ": a body was accepted, but " + op.getOperationId() + " documents none");
            return out;
        }
        String media = contentType == null ? "" : contentType.split(";")[0].trim().toLowerCase(Locale.ROOT);
        MediaType documented = op.getRequestBody().getContent().get(media);
        if (documented == null) {
            out.add(where + ": Content-Type '" + media + "' not among " + op.getRequestBody().getContent().keySet());
            return out;
        }
        if (media.endsWith("json")) validate(op.getOperationId() + " request " + media, documented, body, where, out);
        return out;
    }

    /** {@link #check} of the answer and, when it was accepted (2xx), of the request's JSON body. */
    void check(String method, String path, String requestType, String requestBody, int status, String contentType, String body) {
        check(method, path, status, contentType, body);
        if (status / 100 != 2) return;
        List<String> p = requestProblems(method, path, requestType, requestBody);
        if (!p.isEmpty()) throw new AssertionError("accepted request does not match the OpenAPI document:\n  " + String.join("\n  ", p) + "\n  body: " + requestBody);
    }

    /** {@link #problems} that fails the calling test at once. */
    void check(String method, String path, int status, String contentType, String body) {
        List<String> p = problems(method, path, status, contentType, body);
        if (!p.isEmpty()) throw new AssertionError("response does not match the OpenAPI document:\n  " + String.join("\n  ", p)
                + (body == null ? "" : "\n  body: " + (body.length() > 2000 ? body.substring(0, 2000) + "..." : body)));
    }
}
