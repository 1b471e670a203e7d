package com.fairpix.core.http;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;

/**
 * Who may read a service's Prometheus {@code /metrics} (it names tenants and their volumes):
 * {@code metrics.port} −1 serves it on the service's own port, any other value on a listener of its
 * own (0 = any free port) and not on the service port; {@code metrics.token}, when set, is a bearer
 * token every scrape must send, wherever it is served.
 *
 * @param token bearer token; empty for none
 * @param port  −1: on the service port; otherwise the separate listener's port
 */
public record MetricsAccess(String token, int port) {
    /** {@code /metrics} on the service port, open (the behaviour before the setting). */
    public static final MetricsAccess OPEN = new MetricsAccess("", -1);

    public MetricsAccess {
        token = token == null ? "" : token;
    }

    public static MetricsAccess from(FairpixConfig config) {
        return new MetricsAccess(config.get(Setting.METRICS_TOKEN).trim(), config.integer(Setting.METRICS_PORT));
    }

    /**
     * The token of {@code config} on the service's own port: how the webhook dispatcher, the
     * autoscaler and the worker serve {@code /metrics}. {@code metrics.port} stays the ingest's: in
     * {@code fairpix local} every service runs in one JVM and could not all bind one fixed port.
     */
    public static MetricsAccess tokenOnServicePort(FairpixConfig config) {
        return new MetricsAccess(from(config).token(), -1);
    }

    /** True when {@code /metrics} is served on the service port. */
    public boolean onServicePort() {
        return port < 0;
    }

    /** Answers one scrape: 401 problem without the token (when one is set), else the text exposition. */
    void serve(Context ctx, PrometheusMeterRegistry registry) {
        if (!token.isEmpty()) {
            if (!BearerToken.matches(ctx.header("Authorization"), token)) {
                throw new ApiProblem(401, "unauthorized", "Missing or invalid metrics token",
                        "Send the metrics token as 'Authorization: Bearer ...' (" + Setting.METRICS_TOKEN.env() + ").")
                        .header("WWW-Authenticate", "Bearer realm=\"fairpix-metrics\"");
            }
        }
        ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(registry.scrape().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Starts the separate {@code /metrics} listener when {@link #port} says so.
     *
     * @return the listener (stop it with the service), or null when metrics are on the service port
     */
    public Javalin start(PrometheusMeterRegistry registry, String host) {
        if (onServicePort()) return null;
        Javalin app = Javalin.create(c -> {
            c.showJavalinBanner = false;
            c.useVirtualThreads = true;
        });
        app.exception(ApiProblem.class, (e, ctx) -> ServiceHttp.renderProblem(ctx, e));
        app.get("/metrics", ctx -> serve(ctx, registry));
        return app.start(host, port);
    }
}
