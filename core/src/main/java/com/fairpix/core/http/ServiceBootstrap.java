package com.fairpix.core.http;

import io.javalin.Javalin;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How every fairpix service starts and stops, written once: the Prometheus registry (fairpix's
 * HELP texts, JVM meters), the HTTP server of {@link ServiceHttp} (problem+json, {@code /metrics}
 * as {@link MetricsAccess} allows, {@code /health/live}, and {@code /health/ready} over the
 * readiness checks) with the service's routes, bound to host and port with one start-up log line,
 * and a stop that closes the service's resources in order: its work, then the HTTP listeners, then
 * its clients.
 *
 * <p>A service creates one first, binds its meters to {@link #registry()}, adds its checks,
 * routes and resources as it builds them, and ends with {@link #start}.
 */
public final class ServiceBootstrap {
    private final PrometheusMeterRegistry registry;
    private final Logger log;
    private final Map<String, BooleanSupplier> readiness = new LinkedHashMap<>();
    private final List<Consumer<Javalin>> routes = new ArrayList<>();
    private final List<AutoCloseable> work = new ArrayList<>();
    private final List<AutoCloseable> clients = new ArrayList<>();
    private MetricsAccess metrics = MetricsAccess.OPEN;
    /** Largest request body Javalin buffers, bytes; negative keeps Javalin's default. */
    private long maxRequestSize = -1;

    private ServiceBootstrap(PrometheusMeterRegistry registry, Class<?> service) {
        this.registry = registry;
        this.log = LoggerFactory.getLogger(service);
    }

    /**
     * A service with a new registry ({@link ServiceHttp#newRegistry(Tags)}).
     *
     * @param service    the service's class; the start-up line is logged under its name
     * @param commonTags tags on every meter (a worker's pool); empty for none
     */
    public static ServiceBootstrap create(Class<?> service, Tags commonTags) {
        return new ServiceBootstrap(ServiceHttp.newRegistry(commonTags), service);
    }

    /** A service whose registry already exists (made by {@link ServiceHttp#newRegistry()}). */
    public static ServiceBootstrap on(PrometheusMeterRegistry registry, Class<?> service) {
        return new ServiceBootstrap(registry, service);
    }

    /** The registry {@code /metrics} serves: bind the service's meters here before {@link #start}. */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /**
     * Adds a dependency to {@code /health/ready}: ready only while every check answers true (a
     * check that throws counts as down). Checks are listed in the order added.
     */
    public ServiceBootstrap ready(String dependency, BooleanSupplier check) {
        readiness.put(dependency, check);
        return this;
    }

    /** Who may read {@code /metrics}; {@link MetricsAccess#OPEN} (the service port, no token) unless set. */
    public ServiceBootstrap metrics(MetricsAccess access) {
        this.metrics = access;
        return this;
    }

    /** Caps the request bodies Javalin buffers (JSON bodies), bytes; Javalin's default unless set. */
    public ServiceBootstrap maxRequestSize(long bytes) {
        this.maxRequestSize = bytes;
        return this;
    }

    /** Registers the service's routes on the app (called once, at {@link #start}, in the order added). */
    public ServiceBootstrap routes(Consumer<Javalin> register) {
        routes.add(register);
        return this;
    }

    /** Serves the OpenAPI document at {@code resource} (a classpath path) as {@link OpenApiDocument#serve} does. */
    public ServiceBootstrap openApi(String resource) {
        return routes(app -> OpenApiDocument.load(resource).serve(app));
    }

    /** A {@code GET path} route answering {@code body}'s value as JSON (e.g. a worker's codecs). */
    public ServiceBootstrap getJson(String path, Supplier<?> body) {
        return routes(app -> app.get(path, ctx -> ctx.json(body.get())));
    }

    /** Work to stop before the HTTP listeners (loops, consumers, schedulers), stopped in the order given. */
    public ServiceBootstrap stopFirst(AutoCloseable... resources) {
        work.addAll(List.of(resources));
        return this;
    }

    /** Clients to close after the HTTP listeners (Kafka, S3, Redis), closed in the order given. */
    public ServiceBootstrap closeLast(AutoCloseable... resources) {
        clients.addAll(List.of(resources));
        return this;
    }

    /**
     * Starts the HTTP server on {@code host:port} (and the separate {@code /metrics} listener when
     * {@link MetricsAccess} asks for one) and logs {@code started}, followed by the ports.
     *
     * @param port    0 = any free port; negative runs the service without HTTP (no {@code /metrics}, no {@code /health})
     * @param started what the service started, e.g. "ingest-api started"
     * @throws RuntimeException when the port cannot be bound
     */
    public Running start(String host, int port, String started) {
        if (port < 0) {
            log.info("{}", started);
            return new Running(null, null, work, clients);
        }
        Javalin app = ServiceHttp.create(registry, readiness, metrics, c -> {
            if (maxRequestSize >= 0) c.http.maxRequestSize = maxRequestSize;
        });
        routes.forEach(r -> r.accept(app));
        app.start(host, port);
        Javalin metricsApp = metrics.start(registry, host);
        log.info("{}, HTTP on port {} at {}{}", started, app.port(), host, metricsApp == null ? "" : ", /metrics on port " + metricsApp.port());
        return new Running(app, metricsApp, work, clients);
    }

    /** A started service: its ports, its routes, and its stop. */
    public static final class Running implements AutoCloseable {
        private final Javalin app;
        private final Javalin metricsApp;
        private final List<AutoCloseable> work;
        private final List<AutoCloseable> clients;

        private Running(Javalin app, Javalin metricsApp, List<AutoCloseable> work, List<AutoCloseable> clients) {
            this.app = app;
            this.metricsApp = metricsApp;
            this.work = List.copyOf(work);
            this.clients = List.copyOf(clients);
        }

        /** The HTTP port bound (useful with port 0); -1 without HTTP. */
        public int port() {
            return app == null ? -1 : app.port();
        }

        /** The port of the separate {@code /metrics} listener; -1 when {@code /metrics} is on {@link #port()} or not served. */
        public int metricsPort() {
            return metricsApp == null ? -1 : metricsApp.port();
        }

        /** Every route served, "METHOD /path" ({@link ServiceHttp#routes}); empty without HTTP. */
        public List<String> routes() {
            return app == null ? List.of() : ServiceHttp.routes(app);
        }

        /**
         * Stops the work, then the HTTP listeners, then closes the clients, each in its order. Every
         * resource is closed even when one fails; the first failure is thrown at the end, later ones
         * suppressed in it.
         */
        @Override
        public void close() {
            List<AutoCloseable> order = new ArrayList<>(work);
            if (app != null) order.add(app::stop);
            if (metricsApp != null) order.add(metricsApp::stop);
            order.addAll(clients);
            RuntimeException failed = null;
            for (AutoCloseable r : order) {
                try {
                    r.close();
                } catch (Exception e) {
                    if (e instanceof InterruptedException) Thread.currentThread().interrupt();
                    if (failed == null) failed = e instanceof RuntimeException re ? re : new IllegalStateException("closing a service resource failed", e);
                    else failed.addSuppressed(e);
                }
            }
            if (failed != null) throw failed;
        }
    }
}
