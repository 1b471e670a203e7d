package com.fairpix.core.http;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An HTTP answer with an RFC 9457 {@code application/problem+json} body: thrown by the http
 * packages' own refusals, and what {@link Problems} makes of core's error family (services throw
 * that, never this).
 *
 * <p>{@code type} is {@code https://fairpix.dev/problems/{slug}}; {@code extensions} become extra
 * members of the body (e.g. {@code errors}); {@code headers} are added to the response (e.g.
 * {@code Retry-After}).
 */
public class ApiProblem extends RuntimeException {
    public static final String TYPE_BASE = "https://fairpix.dev/problems/";

    private final int status;
    private final String slug;
    private final String title;
    private final Map<String, Object> extensions = new LinkedHashMap<>();
    private final Map<String, String> headers = new LinkedHashMap<>();

    public ApiProblem(int status, String slug, String title, String detail) {
        super(detail);
        this.status = status;
        this.slug = slug;
        this.title = title;
    }

    public ApiProblem with(String member, Object value) {
        extensions.put(member, value);
        return this;
    }

    public ApiProblem header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    public int status() { return status; }
    public String slug() { return slug; }
    public String title() { return title; }
    public String detail() { return getMessage(); }
    public Map<String, Object> extensions() { return extensions; }
    public Map<String, String> headers() { return headers; }

    /** The problem document's members, in RFC 9457 order, then the extensions. */
    public Map<String, Object> body(String instance) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", TYPE_BASE + slug);
        body.put("title", title);
        body.put("status", status);
        if (getMessage() != null) body.put("detail", getMessage());
        if (instance != null) body.put("instance", instance);
        body.putAll(extensions);
        return body;
    }

    public static ApiProblem badRequest(String slug, String detail) {
        return new ApiProblem(400, slug, "Bad request", detail);
    }

    public static ApiProblem unauthorized(String detail) {
        return new ApiProblem(401, "unauthorized", "Missing or invalid API key", detail)
                .header("WWW-Authenticate", "Bearer realm=\"fairpix\"");
    }

    public static ApiProblem forbidden(String slug, String detail) {
        return new ApiProblem(403, slug, "Forbidden", detail);
    }

    public static ApiProblem notFound(String detail) {
        return new ApiProblem(404, "not-found", "Not found", detail);
    }

    public static ApiProblem conflict(String slug, String detail) {
        return new ApiProblem(409, slug, "Conflict", detail);
    }

    public static ApiProblem tooLarge(String detail) {
        return new ApiProblem(413, "payload-too-large", "Upload too large", detail);
    }

    public static ApiProblem unsupportedMediaType(String detail) {
        return new ApiProblem(415, "unsupported-media-type", "Unsupported image type", detail);
    }

    public static ApiProblem unavailable(String dependency, String detail, int retryAfterSeconds) {
        return new ApiProblem(503, "backend-unavailable", "Service temporarily unavailable", detail)
                .with("dependency", dependency)
                .header("Retry-After", Integer.toString(retryAfterSeconds));
    }

    /**
     * 503 for a farm condition (a recovery ramp, backlog shedding), never the tenant's own limit
     * (that is 429): the client should back off for {@code retryAfterSeconds} and try again.
     *
     * @param reason ramp, shed-borrowed or shed-reserved
     */
    public static ApiProblem overloaded(String reason, String detail, int retryAfterSeconds) {
        return new ApiProblem(503, "overloaded", "Farm overloaded", detail)
                .with("reason", reason)
                .header("Retry-After", Integer.toString(retryAfterSeconds));
    }
}
