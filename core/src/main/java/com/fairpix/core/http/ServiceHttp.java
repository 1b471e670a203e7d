package com.fairpix.core.http;

import com.fairpix.core.error.Rejected;
import com.fairpix.core.error.RetryLater;
import com.fairpix.core.json.Json;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.json.JavalinJackson;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server every fairpix service runs: JSON through our Jackson mapper, errors (ApiProblem,
 * and core's Rejected and RetryLater through {@link Problems}) as RFC 9457 problem+json in one place, Prometheus text at {@code /metrics}, and {@code /health/live} and
 * {@code /health/ready} (503 naming the dependencies that are down).
 */
public final class ServiceHttp {
    public static final String PROBLEM_JSON = "application/problem+json";
    private static final Logger log = LoggerFactory.getLogger(ServiceHttp.class);

    private ServiceHttp() {}

    public static PrometheusMeterRegistry newRegistry() {
        return newRegistry(io.micrometer.core.instrument.Tags.empty());
    }

    /** Every route {@code app} serves, as "METHOD /path" (Javalin's path syntax), filters left out. */
    public static java.util.List<String> routes(Javalin app) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (var e : app.unsafeConfig().pvt.internalRouter.allHttpHandlers()) {
            io.javalin.http.HandlerType t = e.getEndpoint().getMethod();
            if (t.isHttpMethod()) out.add(t.name() + " " + e.getEndpoint().getPath());
        }
        return out;
    }

    /** {@link #newRegistry()} with {@code commonTags} on every meter (e.g. a worker's pool). */
    public static PrometheusMeterRegistry newRegistry(io.micrometer.core.instrument.Tags commonTags) {
        // HELP for every fairpix family and a promtool-clean exposition: before any meter exists.
        PrometheusMeterRegistry registry = com.fairpix.core.metrics.MetricHelp.applyTo(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        registry.config().commonTags(commonTags);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        return registry;
    }

    /**
     * @param readiness dependency name → check; ready only when all answer true
     * @param extra     further configuration (request size limits)
     */
    public static Javalin create(PrometheusMeterRegistry registry, Map<String, BooleanSupplier> readiness, Consumer<JavalinConfig> extra) {
        return create(registry, readiness, MetricsAccess.OPEN, extra);
    }

    /**
     * @param metrics who may read {@code /metrics}: here without a token, here behind its own token,
     *                or not here at all (a separate listener, {@link MetricsAccess#start})
     */
    public static Javalin create(PrometheusMeterRegistry registry, Map<String, BooleanSupplier> readiness, MetricsAccess metrics,
                                 Consumer<JavalinConfig> extra) {
        Javalin app = Javalin.create(config -> {
            config.showJavalinBanner = false;
            config.useVirtualThreads = true;
            config.jsonMapper(new JavalinJackson(Json.mapper(), true));
            // A known path with a method it does not take: 405 with Allow (RFC 9110 §15.5.6), not 404.
            config.http.prefer405over404 = true;
            extra.accept(config);
        });
        app.exception(ApiProblem.class, (e, ctx) -> answer(registry, ctx, e));
        app.exception(Rejected.class, (e, ctx) -> answer(registry, ctx, Problems.of(e)));
        app.exception(RetryLater.class, (e, ctx) -> answer(registry, ctx, Problems.of(e)));
        // Javalin's and Jetty's own refusals (e.g. a JSON body over the size limit) as problems too.
        app.exception(io.javalin.http.HttpResponseException.class, (e, ctx) -> {
            String allowed = e.getDetails().get("availableMethods");
            if (e.getStatus() == 405 && allowed != null) ctx.header("Allow", allowed);
            renderProblem(ctx,
                new ApiProblem(e.getStatus(), switch (e.getStatus()) {
                    case 404 -> "not-found";
                    case 405 -> "method-not-allowed";
                    case 413 -> "payload-too-large";
                    default -> "http-" + e.getStatus();
                },
                        io.javalin.http.HttpStatus.forStatus(e.getStatus()).getMessage(), e.getMessage()));
        });
        app.exception(Exception.class, (e, ctx) -> {
            if (com.fairpix.core.redis.Redis.isOutage(e)) {
                // Redis away or failing over (a read no handler guarded): the client retries, no bug to log.
                log.warn("Redis unavailable on {} {}: {}", ctx.method(), ctx.path(), e.toString());
                renderProblem(ctx, ApiProblem.unavailable("redis", "A data store is not answering right now; try again shortly.", 2));
                return;
            }
            log.error("unhandled error on {} {}", ctx.method(), ctx.path(), e);
            renderProblem(ctx, new ApiProblem(500, "internal", "Internal server error", "The request failed on our side; it has been logged."));
        });
        app.error(404, ctx -> {
            if (ctx.result() == null || ctx.result().isEmpty()) {
                renderProblem(ctx, ApiProblem.notFound("No route for " + ctx.method() + " " + ctx.path()));
            }
        });
        app.error(405, ctx -> renderProblem(ctx, new ApiProblem(405, "method-not-allowed", "Method not allowed", ctx.method() + " is not allowed on " + ctx.path())));
        if (metrics.onServicePort()) app.get("/metrics", ctx -> metrics.serve(ctx, registry));
        app.get("/health/live", ctx -> ctx.json(Map.of("status", "UP")));
        app.get("/health/ready", ctx -> {
            Map<String, String> checks = new LinkedHashMap<>();
            boolean ready = true;
            for (var check : readiness.entrySet()) {
                boolean up;
                try {
                    up = check.getValue().getAsBoolean();
                } catch (RuntimeException e) {
                    up = false;
                }
                checks.put(check.getKey(), up ? "UP" : "DOWN");
                ready &= up;
            }
            ctx.status(ready ? 200 : 503).json(Map.of("status", ready ? "UP" : "DOWN", "checks", checks));
        });
        return app;
    }

    /** Renders {@code problem}, counting a client error (4xx) by status and problem type. */
    private static void answer(PrometheusMeterRegistry registry, Context ctx, ApiProblem problem) {
        if (problem.status() >= 400 && problem.status() < 500) {
            registry.counter(com.fairpix.core.metrics.MetricNames.CLIENT_ERRORS, "status", Integer.toString(problem.status()), "type", problem.slug()).increment();
        }
        renderProblem(ctx, problem);
    }

    /**
     * The request body as a JSON object.
     *
     * @throws ApiProblem 400 {@code invalid-json} when it is not one
     */
    public static com.fasterxml.jackson.databind.JsonNode jsonObject(Context ctx) {
        try {
            com.fasterxml.jackson.databind.JsonNode node = Json.mapper().readTree(ctx.body());
            if (node != null && node.isObject()) return node;
        } catch (Exception e) {
            // fall through to the problem
        }
        throw ApiProblem.badRequest("invalid-json", "The body must be a JSON object.");
    }

    /**
     * Writes {@code problem} as the response: status, headers, problem+json body in UTF-8 (RFC 8259
     * §8.1; encoded here, so the servlet's default ISO-8859-1 never turns a character into '?').
     */
    public static void renderProblem(Context ctx, ApiProblem problem) {
        problem.headers().forEach(ctx::header);
        ctx.status(problem.status())
                .contentType(PROBLEM_JSON)
                .result(Json.writeBytes(problem.body(ctx.path())));
    }
}
