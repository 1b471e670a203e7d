package com.fairpix.autoscaler;

import com.fairpix.autoscaler.actuate.Actuator;
import com.fairpix.autoscaler.http.AdminGuard;
import com.fairpix.autoscaler.http.ManagedPools;
import com.fairpix.autoscaler.http.PoolsController;
import com.fairpix.autoscaler.policy.Decision;
import com.fairpix.autoscaler.policy.PolicyConfig;
import com.fairpix.autoscaler.policy.PoolScaler;
import com.fairpix.autoscaler.policy.Reason;
import com.fairpix.autoscaler.policy.ScalingPolicy;
import com.fairpix.autoscaler.signal.PoolSignals;
import com.fairpix.autoscaler.signal.SignalSource;
import com.fairpix.core.error.Rejected;
import com.fairpix.core.http.MetricsAccess;
import com.fairpix.core.http.ServiceBootstrap;
import com.fairpix.core.metrics.MetricNames;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The autoscaler service: every evaluation period it reads each pool's signals, lets the policy
 * decide, applies operator overrides (pause, manual set), tells the actuator, and records the
 * decision with its inputs (log, metrics, admin API). Serves /admin/v1/pools, /metrics, /health.
 */
public final class Autoscaler implements ManagedPools, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Autoscaler.class);

    private final Map<String, PoolControl> pools = new LinkedHashMap<>();
    private final SignalSource signals;
    private final Actuator actuator;
    private final Clock clock;
    private final MeterRegistry metrics;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().name("fairpix-autoscaler").daemon().unstarted(r));
    private ServiceBootstrap.Running http;

    /**
     * @param policies pool → its policy; the pools managed
     */
    public Autoscaler(Map<String, PolicyConfig> policies, SignalSource signals, Actuator actuator, Clock clock, MeterRegistry metrics) {
        this.signals = signals;
        this.actuator = actuator;
        this.clock = clock;
        this.metrics = metrics;
        ScalingPolicy policy = ScalingPolicy.stabilized();
        policies.forEach((pool, config) -> {
            PoolControl control = new PoolControl(new PoolScaler(pool, policy, config, clock));
            pools.put(pool, control);
            Gauge.builder(MetricNames.AUTOSCALER_DESIRED_REPLICAS, control, c -> c.lastDecision == null ? Double.NaN : c.lastDecision.desired())
                    .tag("pool", pool).description("replicas the autoscaler wants").register(metrics);
            Gauge.builder(MetricNames.AUTOSCALER_ACTUAL_REPLICAS, control, c -> c.actual < 0 ? Double.NaN : c.actual)
                    .tag("pool", pool).description("replicas the actuator reports").register(metrics);
            Gauge.builder(MetricNames.AUTOSCALER_CONSUMER_LAG, control, c -> c.lastGoodReading == null ? Double.NaN : c.lastGoodReading.lag())
                    .tag("pool", pool).description("consumer lag of the pool's worker group, messages").register(metrics);
            Gauge.builder(MetricNames.AUTOSCALER_INGEST_QPS, control, c -> c.lastGoodReading == null ? Double.NaN : c.lastGoodReading.qps())
                    .tag("pool", pool).description("jobs accepted for the pool per second").register(metrics);
        });
    }

    /** Starts evaluating every {@code period}, first at once. */
    public Autoscaler startLoop(Duration period) {
        loop.scheduleWithFixedDelay(this::evaluateAllSafely, 0, period.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * Serves the admin API and /metrics on {@code host:port} (0 = any free port).
     *
     * @param metrics who may read {@code /metrics} ({@link MetricsAccess#tokenOnServicePort} in production)
     */
    public Autoscaler startHttp(PrometheusMeterRegistry registry, String host, int port, String adminToken, MetricsAccess metrics) {
        this.http = ServiceBootstrap.on(registry, Autoscaler.class)
                .metrics(metrics)
                .ready("signals", this::signalsHealthy)
                .routes(new PoolsController(this, new AdminGuard(adminToken)).routes())
                .openApi("/openapi/autoscaler.yaml")
                .start(host, port, "autoscaler (" + actuator.kind() + " actuator) serving /admin/v1/pools");
        return this;
    }

    /** The port the admin API is served on; -1 before {@link #startHttp}. */
    public int port() {
        return http == null ? -1 : http.port();
    }

    /** Every route the admin API serves, "METHOD /path" (for the test that holds them to the OpenAPI document). */
    public List<String> routes() {
        return http == null ? List.of() : http.routes();
    }

    @Override
    public String actuatorKind() {
        return actuator.kind();
    }

    @Override
    public List<String> pools() {
        return List.copyOf(pools.keySet());
    }

    private boolean signalsHealthy() {
        for (PoolControl c : pools.values()) {
            synchronized (c) {
                if (c.lastReading != null && !c.lastReading.ok()) return false;
            }
        }
        return true;
    }

    private void evaluateAllSafely() {
        for (String pool : pools.keySet()) {
            try {
                evaluate(pool);
            } catch (RuntimeException e) {
                log.error("evaluation of pool {} failed", pool, e);
            }
        }
    }

    /** One evaluation of one pool (the loop's body; tests call it directly). */
    public Decision evaluate(String pool) {
        PoolControl c = control(pool);
        PoolSignals reading = signals.read(pool, clock.instant());
        if (!reading.ok()) metrics.counter(MetricNames.AUTOSCALER_FAILED_READINGS, "pool", pool).increment();
        synchronized (c) {
            c.lastReading = reading;
            if (reading.ok()) c.lastGoodReading = reading;
            int current;
            try {
                current = actuator.replicas(pool);
                c.actuatorError = null;
            } catch (RuntimeException e) {
                c.actuatorError = e.getMessage();
                log.warn("cannot read the replicas of pool {}: {}", pool, e.getMessage());
                reading = PoolSignals.failed(pool, reading.at(), "actuator: " + e.getMessage());
                current = Math.max(c.actual, 0);
            }
            Decision d = c.scaler.observe(reading, current);
            if (c.mode == PoolControl.Mode.PAUSED) {
                d = d.overridden(current, Reason.PAUSED, "paused by an operator; the policy recommends " + d.recommendation());
            } else if (c.mode == PoolControl.Mode.MANUAL) {
                d = d.overridden(c.manualReplicas, Reason.MANUAL, "set to " + c.manualReplicas + " by an operator; the policy recommends " + d.recommendation());
            }
            if (d.changes() && c.actuatorError == null) {
                try {
                    actuator.scale(pool, d.desired());
                    c.scaler.acted(d);
                    current = d.desired();
                } catch (RuntimeException e) {
                    c.actuatorError = e.getMessage();
                    log.warn("cannot scale pool {} to {}: {}", pool, d.desired(), e.getMessage());
                }
            }
            c.actual = current;
            Decision previous = c.lastDecision;
            c.record(d);
            metrics.counter(MetricNames.AUTOSCALER_DECISIONS, "pool", pool, "reason", d.reason().name().toLowerCase()).increment();
            // The decision log: every change, and every change of reason; the rest at debug.
            if (d.changes() || previous == null || previous.reason() != d.reason()) log.info("decision {}", d.logLine());
            else log.debug("decision {}", d.logLine());
            return d;
        }
    }

    PoolControl control(String pool) {
        PoolControl c = pools.get(pool);
        if (c == null) throw Rejected.notFound("No pool '" + pool + "'; this autoscaler manages " + pools.keySet() + " (FAIRPIX_AUTOSCALER_POOLS).");
        return c;
    }

    @Override
    public Map<String, Object> status(String pool) {
        PoolControl c = control(pool);
        synchronized (c) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("pool", pool);
            s.put("mode", c.mode.name().toLowerCase());
            s.put("actuator", actuator.kind());
            s.put("desired", c.lastDecision == null ? null : c.lastDecision.desired());
            s.put("actual", c.actual < 0 ? null : c.actual);
            if (c.mode == PoolControl.Mode.MANUAL) s.put("manualReplicas", c.manualReplicas);
            s.put("recommendation", c.lastDecision == null ? null : c.lastDecision.recommendation());
            s.put("lastDecision", c.lastDecision);
            PoolSignals r = c.lastReading;
            if (r != null) {
                Map<String, Object> sig = new LinkedHashMap<>();
                sig.put("ok", r.ok());
                sig.put("at", r.at().toString());
                if (!r.ok()) sig.put("error", r.error());
                PoolSignals g = c.lastGoodReading;
                if (g != null) {
                    sig.put("qps", g.qps());
                    sig.put("lag", g.lag());
                    sig.put("lagGrowthPerSecond", c.lastDecision == null ? 0 : c.lastDecision.inputs().growthPerSecond() / c.scaler.config().costPerJob());
                    sig.put("partitions", g.partitions());
                    sig.put("partitionsWithLag", g.partitionsWithLag());
                    sig.put("lagByPartition", g.lagByPartition());
                    sig.put("topTenants", g.tenantBacklog().entrySet().stream()
                            .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(5)
                            .map(e -> Map.of("tenant", e.getKey(), "backlog", e.getValue())).toList());
                }
                s.put("signals", sig);
            }
            if (c.actuatorError != null) s.put("actuatorError", c.actuatorError);
            try {
                s.put("replicas", actuator.details(pool));
            } catch (RuntimeException e) {
                s.put("replicas", List.of());
            }
            s.put("policy", c.scaler.config());
            return s;
        }
    }

    @Override
    public List<Decision> decisions(String pool, int limit) {
        PoolControl c = control(pool);
        synchronized (c) {
            return c.decisions(limit);
        }
    }

    @Override
    public PolicyConfig policy(String pool) {
        return control(pool).scaler.config();
    }

    @Override
    public void reconfigure(String pool, PolicyConfig next) {
        PoolControl c = control(pool);
        synchronized (c) {
            c.scaler.reconfigure(next);
        }
        log.info("policy of pool {} changed to {}", pool, next);
    }

    @Override
    public void set(String pool, int replicas) {
        PoolControl c = control(pool);
        synchronized (c) {
            PolicyConfig p = c.scaler.config();
            if (replicas < p.minReplicas() || replicas > p.maxReplicas()) {
                throw Rejected.invalid("replicas-out-of-bounds", "replicas must be within [" + p.minReplicas() + ", " + p.maxReplicas()
                        + "] (the pool's minReplicas/maxReplicas; change them with 'fairpix scale policy').");
            }
            c.mode = PoolControl.Mode.MANUAL;
            c.manualReplicas = replicas;
        }
        log.info("pool {} set to {} replicas by an operator", pool, replicas);
        evaluateSoon(pool);
    }

    @Override
    public void pause(String pool) {
        PoolControl c = control(pool);
        synchronized (c) {
            c.mode = PoolControl.Mode.PAUSED;
        }
        log.info("pool {} paused by an operator", pool);
    }

    @Override
    public void resume(String pool) {
        PoolControl c = control(pool);
        synchronized (c) {
            c.mode = PoolControl.Mode.AUTO;
        }
        log.info("pool {} resumed by an operator", pool);
        evaluateSoon(pool);
    }

    private void evaluateSoon(String pool) {
        if (!loop.isShutdown()) loop.execute(() -> {
            try {
                evaluate(pool);
            } catch (RuntimeException e) {
                log.error("evaluation of pool {} failed", pool, e);
            }
        });
    }

    @Override
    public void close() {
        loop.shutdownNow();
        try {
            loop.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (http != null) http.close();
        actuator.close();
        signals.close();
        log.info("autoscaler stopped");
    }
}
