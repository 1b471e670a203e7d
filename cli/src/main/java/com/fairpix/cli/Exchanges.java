package com.fairpix.cli;

import java.net.URI;

/**
 * Where the CLI's HTTP exchanges can be observed: the integration tests hold every one of them to
 * the services' OpenAPI documents. Nothing observes them in production (one volatile read a call).
 */
public final class Exchanges {
    private Exchanges() {}

    /** One answered request. */
    @FunctionalInterface
    public interface Observer {
        /**
         * @param contentType the answer's Content-Type (null: none)
         * @param body        the body as text; {@code "(binary)"} for a non-text body, null for none
         */
        void exchanged(String method, URI uri, int status, String contentType, String body);
    }

    private static volatile Observer observer;

    /** Installs {@code o} (null removes it). */
    public static void observe(Observer o) {
        observer = o;
    }

    /** An exchange made without {@code HttpClient} (a streamed body, not observed: null). */
    static void exchanged(String method, URI uri, int status, String contentType, String body) {
        Observer o = observer;
        if (o != null) o.exchanged(method, uri, status, contentType, body);
    }

    static void exchanged(java.net.http.HttpRequest request, java.net.http.HttpResponse<?> response) {
        Observer o = observer;
        if (o == null) return;
        String type = response.headers().firstValue("Content-Type").orElse(null);
        Object b = response.body();
        String body;
        if (b instanceof String s) body = s.isEmpty() ? null : s;
        else if (b instanceof byte[] bytes) body = bytes.length == 0 ? null
                : type != null && (type.contains("json") || type.startsWith("text/")) ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8) : "(binary)";
        else body = null;
        o.exchanged(request.method(), request.uri(), response.statusCode(), type, body);
    }
}
