package com.fairpix.cli;

import com.fairpix.core.json.Json;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/** A small client of the fairpix HTTP APIs, for the CLI. Errors carry the problem+json detail. */
final class ApiClient {
    // Built on first use: HttpClient's start (its selector thread, ~100 classes) is wasted on a
    // command that only streams (fairpix usage, over HttpURLConnection: see stream).
    private HttpClient http;
    private final String baseUrl;
    private final String bearer;

    ApiClient(String baseUrl, String bearer) {
        this(baseUrl, bearer, INGEST);
    }

    /**
     * @param service what listens at {@code baseUrl}, for the one line a refused connection prints
     */
    ApiClient(String baseUrl, String bearer, Service service) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.bearer = bearer;
        this.service = service;
    }

    /** A service the CLI talks to: its name, how to start it, how to point the CLI elsewhere. */
    record Service(String name, String start, String elsewhere) {}

    static final Service INGEST = new Service("the ingest API", "`fairpix local` (or `fairpix ingest-api`)", "--url or FAIRPIX_URL");
    static final Service AUTOSCALER = new Service("the autoscaler", "`fairpix autoscaler` (`fairpix local` does not run one)",
            "--url or FAIRPIX_AUTOSCALER_URL");

    private final Service service;

    /** Nothing listens where the CLI was pointed: the message says, in one line, what to start. */
    static final class UnreachableException extends java.io.IOException {
        UnreachableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private UnreachableException unreachable(java.net.ConnectException e) {
        return new UnreachableException("cannot reach " + service.name() + " at " + baseUrl + " (connection refused): start it with "
                + service.start() + ", or point the CLI at it with " + service.elsewhere() + ".", e);
    }

    /** The HTTP exchange, with a refused connection turned into {@link UnreachableException}. */
    private <T> HttpResponse<T> exchange(HttpRequest request, HttpResponse.BodyHandler<T> body) throws IOException, InterruptedException {
        try {
            HttpResponse<T> r = http().send(request, body);
            Exchanges.exchanged(request, r);
            return r;
        } catch (java.net.ConnectException e) {
            throw unreachable(e);
        }
    }

    private synchronized HttpClient http() {
        if (http == null) http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        return http;
    }

    /** A non-2xx answer: status and the problem's title and detail. */
    static final class ApiException extends RuntimeException {
        private final int status;

        private long retryAfterSeconds = -1;

        ApiException(int status, String message) {
            super(message);
            this.status = status;
        }

        /** The answer's Retry-After in seconds; -1 when it had none. */
        long retryAfterSeconds() {
            return retryAfterSeconds;
        }

        int status() {
            return status;
        }
    }

    /** A GET; a 429 or 503 with Retry-After (a tenant's read budget, an overloaded node) is retried after it, as {@link #honouringRetryAfter} says. */
    JsonNode get(String path) throws IOException, InterruptedException {
        return honouringRetryAfter(() -> send(request(path).GET().build()));
    }

    JsonNode postJson(String path, Object body) throws IOException, InterruptedException {
        return send(request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(Json.writeBytes(body))).build());
    }

    JsonNode patchJson(String path, Object body) throws IOException, InterruptedException {
        return send(request(path).header("Content-Type", "application/merge-patch+json")
                .method("PATCH", HttpRequest.BodyPublishers.ofByteArray(Json.writeBytes(body))).build());
    }

    JsonNode delete(String path) throws IOException, InterruptedException {
        return send(request(path).DELETE().build());
    }

    /** A JSON request with any method (PUT, PATCH, POST); {@code body} null sends none. */
    JsonNode sendJson(String method, String path, Object body) throws IOException, InterruptedException {
        HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(Json.writeBytes(body));
        HttpRequest.Builder b = request(path).method(method, publisher);
        if (body != null) b.header("Content-Type", "application/json");
        return send(b.build());
    }

    /** Submits an image as a raw body with the spec in the query (the API sniffs the real type). */
    JsonNode submit(Path image, String specJson, String idempotencyKey) throws IOException, InterruptedException {
        HttpRequest.Builder b = request("/v1/jobs?spec=" + URLEncoder.encode(specJson, StandardCharsets.UTF_8))
                .header("Content-Type", "application/octet-stream")
                .POST(HttpRequest.BodyPublishers.ofFile(image));
        if (idempotencyKey != null) b.header("Idempotency-Key", idempotencyKey);
        return send(b.build());
    }

    /** True when the job JSON's state is DONE, FAILED or CANCELLED (see {@link com.fairpix.core.job.JobState#terminal()}). */
    static boolean isTerminal(JsonNode job) {
        try {
            return com.fairpix.core.job.JobState.valueOf(job.path("state").asText()).terminal();
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * Submits like a well-behaved client: a 429 or 503 that names a Retry-After is retried after
     * it, at most 10 times; any other refusal is final.
     */
    JsonNode submitHonouringRetryAfter(Path image, String specJson) throws IOException, InterruptedException {
        return honouringRetryAfter(() -> submit(image, specJson, null));
    }

    /** A result's bytes; a 429 or 503 with Retry-After is retried after it, as {@link #honouringRetryAfter} says. */
    byte[] download(String path) throws IOException, InterruptedException {
        return honouringRetryAfter(() -> {
            HttpResponse<byte[]> r = exchange(request(path).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() / 100 != 2) throw failure(r.statusCode(), new String(r.body(), StandardCharsets.UTF_8), r.headers());
            return r.body();
        });
    }

    /** One exchange with the API. */
    interface Call<T> {
        T call() throws IOException, InterruptedException;
    }

    /**
     * Runs {@code call}; a 429 or 503 that names a Retry-After (seconds) is tried again after it, at
     * most 10 tries in all; any other refusal, or the 10th, is thrown ({@link ApiException}).
     */
    static <T> T honouringRetryAfter(Call<T> call) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return call.call();
            } catch (ApiException e) {
                boolean retryable = (e.status() == 429 || e.status() == 503) && e.retryAfterSeconds() >= 0;
                if (!retryable || attempt >= 10) throw e;
                Thread.sleep(Math.max(1, e.retryAfterSeconds()) * 1000);
            }
        }
    }

    /**
     * A GET whose 2xx body is copied to {@code out} as it arrives (a large export is never held
     * whole); a non-2xx answer throws as {@link #get} does. Over {@link java.net.HttpURLConnection},
     * not the {@code HttpClient} of the other calls: for a one-shot command reading a big body it
     * costs a quarter of the CPU (a month of 10,000 tenants' usage, 26 MB: 0.5 s against 1.9 s,
     * docs/usage.md).
     */
    void stream(String path, java.io.Writer out) throws IOException {
        stream(path, body -> new java.io.InputStreamReader(body, StandardCharsets.UTF_8).transferTo(out));
    }

    /** {@link #stream(String, java.io.Writer)}, the body's bytes copied to {@code out} as they came. */
    void stream(String path, java.io.OutputStream out) throws IOException {
        stream(path, body -> body.transferTo(out));
    }

    private interface BodyCopy {
        void copy(java.io.InputStream body) throws IOException;
    }

    private void stream(String path, BodyCopy copy) throws IOException {
        java.net.HttpURLConnection c = (java.net.HttpURLConnection) URI.create(baseUrl + path).toURL().openConnection();
        try {
            c.setConnectTimeout(10_000);
            c.setReadTimeout(60_000);
            if (bearer != null && !bearer.isBlank()) c.setRequestProperty("Authorization", "Bearer " + bearer);
            int status;
            try {
                status = c.getResponseCode();
            } catch (java.net.ConnectException e) {
                throw unreachable(e);
            }
            Exchanges.exchanged("GET", URI.create(baseUrl + path), status, c.getContentType(), null);
            if (status / 100 != 2) {
                java.io.InputStream err = c.getErrorStream();
                throw failure(status, err == null ? "" : new String(err.readAllBytes(), StandardCharsets.UTF_8));
            }
            try (java.io.InputStream body = c.getInputStream()) {
                copy.copy(body);
            }
        } finally {
            c.disconnect();
        }
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(60));
        if (bearer != null && !bearer.isBlank()) b.header("Authorization", "Bearer " + bearer);
        return b;
    }

    private JsonNode send(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<String> r = exchange(request, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) throw failure(r.statusCode(), r.body(), r.headers());
        return r.body().isEmpty() ? Json.mapper().createObjectNode() : Json.mapper().readTree(r.body());
    }

    /** {@link #failure(int, String)} with the answer's Retry-After, when it names seconds. */
    private static ApiException failure(int status, String body, java.net.http.HttpHeaders headers) {
        ApiException e = failure(status, body);
        headers.firstValue("Retry-After").ifPresent(v -> {
            try {
                e.retryAfterSeconds = Long.parseLong(v.trim());
            } catch (NumberFormatException ignored) {
                // an HTTP-date: treat as absent
            }
        });
        return e;
    }

    private static ApiException failure(int status, String body) {
        String message = "HTTP " + status;
        try {
            JsonNode problem = Json.mapper().readTree(body);
            if (problem != null && problem.has("title")) {
                message += " " + problem.get("title").asText() + (problem.has("detail") ? ": " + problem.get("detail").asText() : "");
            }
        } catch (IOException ignored) {
            if (!body.isBlank()) message += ": " + body.strip();
        }
        return new ApiException(status, message);
    }
}
