package com.fairpix.ingest.overload;

import com.fairpix.core.error.RetryLater;
import com.fairpix.core.metrics.MetricNames;
import com.fairpix.core.pool.Pool;
import com.fairpix.core.resilience.Breakers;
import com.fairpix.core.resilience.Dependency;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.admission.Decision;
import com.fairpix.ingest.admission.Limits;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * Overload protection on the ingest path: answers 503 at once while a dependency's circuit
 * breaker is open (here or on any other ingest node), admits in ramped steps after recovery
 * (tenants within their guarantees first), and sheds by backlog (borrowed traffic first, then all
 * but a reserved share). State is shared farm-wide by the {@link ControlChannel}. See
 * docs/overload.md.
 */
public final class OverloadGuard implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OverloadGuard.class);
    static final List<String> POOLS = Pool.NAMES;
    /** Retry-After of a shedding 503 while this node has no backlog reading, seconds: a few readings, time for workers to drain some. */
    static final int SHED_RETRY_AFTER_SECONDS = 5;
    /** The longest Retry-After a shedding 503 names, seconds: a client should come back and see. */
    static final int SHED_RETRY_AFTER_MAX_SECONDS = 60;
    private static final long TICK_MS = 100;

    private final OverloadConfig config;
    private final java.util.function.DoubleSupplier farmCapacity;
    private final Breakers breakers;
    private final Clock clock;
    private final MeterRegistry meters;
    private final ControlChannel channel;
    private final BacklogMonitor backlog;
    private final RampBucket rampBucket;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("fairpix-overload").unstarted(r));
    private final AtomicLong rampStart = new AtomicLong();
    private final Map<String, Integer> localShedding = new ConcurrentHashMap<>();
    private volatile Set<Dependency> farmOpen = EnumSet.noneOf(Dependency.class);
    private volatile Map<String, Integer> farmShedding = Map.of();
    private volatile double level = 1.0;
    private volatile boolean probing;
    private volatile int liveNodes = 1;
    private volatile NodeState lastPublished;
    private long lastPublishMillis;

    private OverloadGuard(OverloadConfig config, java.util.function.DoubleSupplier farmCapacity, java.util.function.ToDoubleFunction<String> measuredCapacity,
                          Breakers breakers, UnifiedJedis redis, UnifiedJedis subscriber, String kafkaBootstrap, MeterRegistry meters, Clock clock,
                          LongSupplier nanos) {
        this.config = config;
        this.farmCapacity = farmCapacity;
        this.breakers = breakers;
        this.clock = clock;
        this.meters = meters;
        this.rampBucket = new RampBucket(nanos);
        this.channel = new ControlChannel(redis, subscriber, config.nodeId(), peer -> timer.execute(this::tick), nanos);
        this.backlog = config.shedding() ? new BacklogMonitor(kafkaBootstrap, config.jobSeconds(), Duration.ofSeconds(2), redis, measuredCapacity, clock) : null;
        Gauge.builder(MetricNames.OVERLOAD_RAMP_LEVEL, () -> level).description("admission level during a ramped recovery, 0..1").register(meters);
        for (String pool : POOLS) {
            Gauge.builder(MetricNames.OVERLOAD_SHEDDING_LEVEL, () -> farmShedding.getOrDefault(pool, 0)).tag("pool", pool).register(meters);
            if (backlog != null) Gauge.builder(MetricNames.OVERLOAD_BACKLOG, () -> backlog.seconds().getOrDefault(pool, 0.0)).tag("pool", pool).register(meters);
        }
        // Every reason at 0 from the start: rate() and alerts see a series before the first shed.
        for (Dependency d : Dependency.values()) meters.counter(MetricNames.OVERLOAD_SHED, "reason", "breaker-" + d.id());
        for (String reason : List.of("ramp", "shed-borrowed", "shed-reserved")) meters.counter(MetricNames.OVERLOAD_SHED, "reason", reason);
        for (Dependency d : Dependency.values()) {
            Gauge.builder(MetricNames.OVERLOAD_FARM_BREAKER_OPEN, () -> farmOpen.contains(d) ? 1 : 0).tag("dependency", d.id()).register(meters);
            // React to our own transitions at once, not at the next tick.
            breakers.get(d).getEventPublisher().onStateTransition(e -> timer.execute(this::tick));
        }
    }

    /**
     * @param redis      short-timeout client (publishing, node registry)
     * @param subscriber no-read-timeout client for the control subscription; closed with the guard
     * @param farmCapacity the farm's admission capacity now, tokens/s (0: unknown), which the ramp
     *                     scales unless {@code overload.ramp.capacity} pins one
     * @param measuredCapacity pool → its measured capacity, cost units/s (0: none yet), which turns
     *                     the backlog's queued cost into queue seconds
     * @param clock      the wall clock: node states' timestamps, the ramp's start, backlog readings
     * @param nanos      monotonic clock, nanoseconds: the ramp's token bucket and the age of peers' states
     */
    public static OverloadGuard start(OverloadConfig config, java.util.function.DoubleSupplier farmCapacity,
                                      java.util.function.ToDoubleFunction<String> measuredCapacity, Breakers breakers, UnifiedJedis redis,
                                      UnifiedJedis subscriber, String kafkaBootstrap, MeterRegistry meters, Clock clock, LongSupplier nanos) {
        OverloadGuard g = new OverloadGuard(config, farmCapacity, measuredCapacity, breakers, redis, subscriber, kafkaBootstrap, meters, clock, nanos);
        g.channel.start();
        g.timer.scheduleWithFixedDelay(g::tick, 0, TICK_MS, TimeUnit.MILLISECONDS);
        if (g.backlog != null) g.timer.scheduleWithFixedDelay(g::readBacklog, 0, config.backlogRead().toMillis(), TimeUnit.MILLISECONDS);
        return g;
    }

    public Breakers breakers() { return breakers; }

    public OverloadConfig config() { return config; }

    /**
     * Before any work on a request: 503 at once when a dependency's breaker is open on this node,
     * or on another node (whose probes decide for the farm).
     *
     * @throws RetryLater the dependency, with its retry-after
     */
    public void checkBreakers() {
        Set<Dependency> open = farmOpen;
        for (Dependency d : Dependency.values()) {
            CircuitBreaker.State s = breakers.get(d).getState();
            boolean localOpen = s == CircuitBreaker.State.OPEN || s == CircuitBreaker.State.FORCED_OPEN;
            // A half-open breaker here lets its probes through; one open elsewhere stops us too.
            if (localOpen || (s == CircuitBreaker.State.CLOSED && open.contains(d))) throw breakerOpen(d);
        }
    }

    /** The refusal of a call refused by (or failed under) the breaker of {@code d}; counted. */
    public RetryLater breakerOpen(Dependency d) {
        meters.counter(MetricNames.OVERLOAD_SHED, "reason", "breaker-" + d.id()).increment();
        return RetryLater.dependency(d.id(), "The " + d.id() + " circuit breaker is open: the farm is not accepting jobs until it recovers. Try again shortly.",
                (int) Math.max(1, Math.ceilDiv(config.breakerOpen().toMillis(), 1000))).with("breaker", "open");
    }

    /**
     * After admission admitted a job: the ramp and backlog shedding. Traffic above the tenant's
     * guarantee (borrowed tokens) goes first; a tenant within its guarantee is admitted until
     * the hard bound (then only a reserved share).
     *
     * @throws RetryLater overloaded ({@code ramp}, {@code shed-borrowed}, {@code shed-reserved}) with its retry-after, distinct from the tenant's own limit
     */
    public void checkAdmitted(Tenant tenant, String pool, Decision d) {
        boolean borrowed = d.borrowedNano() > 0;
        int shed = farmShedding.getOrDefault(pool, 0);
        if (shed >= 1 && borrowed) {
            throw shed("shed-borrowed", "Pool '" + pool + "' has a backlog over its bound (overload.backlog.soft-seconds): traffic above tenant '"
                    + tenant.id() + "''s guarantee is shed for now.", shedRetryAfter(backlogSeconds(pool), config.softSeconds()));
        }
        if (shed >= 2 && ThreadLocalRandom.current().nextDouble() >= config.reservedShare()) {
            throw shed("shed-reserved", "Pool '" + pool + "' has a backlog over its hard bound (overload.backlog.hard-seconds): only a reserved share of requests is admitted.",
                    shedRetryAfter(backlogSeconds(pool), config.hardSeconds()));
        }
        double l = level;
        // Half-open here: the breaker itself lets only its probes through; the ramp starts after.
        if (l < 1.0 && !probing) {
            int retry = (int) Math.max(1, Math.ceilDiv(config.rampStep().toMillis(), 1000));
            if (borrowed) throw shed("ramp", "The farm is recovering at " + percent(l) + " of its capacity; traffic above tenants' guarantees waits until the ramp ends.", retry);
            double capacity = config.rampCapacity() > 0 ? config.rampCapacity() : farmCapacity.getAsDouble();
            // In tokens/s of the farm's capacity when it is known; a fraction of requests before any is.
            boolean fits = capacity > 0
                    ? rampBucket.tryTake(l * capacity / liveNodes, d.costNano() / (double) Limits.NANO)
                    : ThreadLocalRandom.current().nextDouble() < l;
            if (!fits) throw shed("ramp", "The farm is recovering at " + percent(l) + " of its capacity (overload.ramp.*); try again shortly.", retry);
        }
    }

    /** This node's last backlog reading of the pool, queue seconds; NaN without one. */
    private double backlogSeconds(String pool) {
        if (backlog == null) return Double.NaN;
        Double s = backlog.seconds().get(pool);
        return s == null ? Double.NaN : s;
    }

    /**
     * Retry-After of a shedding 503: the queue seconds the pool's backlog is over the bound (a queue
     * drains one queue-second per second, when nothing is added), at least 1 and at most
     * {@value #SHED_RETRY_AFTER_MAX_SECONDS}; {@value #SHED_RETRY_AFTER_SECONDS} without a reading
     * (the farm view may shed on another node's).
     *
     * @param backlogSeconds the pool's backlog, queue seconds (NaN: no reading)
     * @param bound          the bound it is over, seconds
     */
    static int shedRetryAfter(double backlogSeconds, double bound) {
        if (Double.isNaN(backlogSeconds)) return SHED_RETRY_AFTER_SECONDS;
        double over = Math.ceil(backlogSeconds - bound);
        return (int) Math.max(1, Math.min(SHED_RETRY_AFTER_MAX_SECONDS, over));
    }

    private RetryLater shed(String reason, String detail, int retryAfter) {
        meters.counter(MetricNames.OVERLOAD_SHED, "reason", reason).increment();
        return RetryLater.overloaded(reason, detail, retryAfter);
    }

    /** The admission level now, 0..1 (0 while a breaker is open farm-wide). */
    public double rampLevel() { return level; }

    /** This node's state as it publishes it. */
    public NodeState local() {
        Map<String, String> b = new LinkedHashMap<>();
        for (Dependency d : Dependency.values()) b.put(d.id(), breakers.get(d).getState().name());
        return new NodeState(config.nodeId(), clock.millis(), b, rampStart.get(), level, Map.copyOf(localShedding),
                backlog == null ? Map.of() : backlog.seconds());
    }

    /**
     * For {@code GET /admin/v1/status}: this node's farm view (breakers, ramp level, shedding)
     * and every registered node's own state.
     */
    public Map<String, Object> status() {
        Map<String, Object> farm = new LinkedHashMap<>();
        Map<String, String> b = new LinkedHashMap<>();
        for (Dependency d : Dependency.values()) {
            String own = breakers.get(d).getState().name();
            b.put(d.id(), !own.equals("CLOSED") ? own : farmOpen.contains(d) ? "OPEN" : "CLOSED");
        }
        farm.put("breakers", b);
        farm.put("rampLevel", level);
        farm.put("rampStart", rampStart.get());
        farm.put("shedding", farmShedding);
        farm.put("nodes", liveNodes);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("node", config.nodeId());
        out.put("farm", farm);
        List<NodeState> nodes;
        try {
            nodes = channel.registered();
        } catch (RuntimeException e) {
            // Redis down: what this node knows.
            nodes = new java.util.ArrayList<>(channel.freshPeers());
            nodes.add(local());
        }
        out.put("nodes", nodes);
        return out;
    }

    /** Recomputes the farm view from this node's breakers and its fresh peers; publishes on change and on the heartbeat. */
    private synchronized void tick() {
        try {
            List<NodeState> peers = channel.freshPeers();
            Set<Dependency> open = EnumSet.noneOf(Dependency.class);
            long peerRampStart = 0;
            Map<String, Integer> shed = new LinkedHashMap<>(localShedding);
            for (NodeState p : peers) {
                for (Dependency d : Dependency.values()) {
                    String s = p.breakers().getOrDefault(d.id(), "CLOSED");
                    if (!s.equals("CLOSED") && !s.equals("DISABLED")) open.add(d);
                }
                peerRampStart = Math.max(peerRampStart, p.rampStart());
                p.shedding().forEach((pool, lvl) -> shed.merge(pool, lvl, Math::max));
            }
            boolean wasOpen = !farmOpen.isEmpty(); // the last tick's view, this node's breakers included
            for (Dependency d : Dependency.values()) {
                if (breakers.get(d).getState() != CircuitBreaker.State.CLOSED) open.add(d);
            }
            long now = clock.millis();
            if (wasOpen && open.isEmpty()) {
                // Recovery: the ramp starts now, or when a peer already started it (so nodes agree).
                long start = peerRampStart > now - 2_000 ? peerRampStart : now;
                rampStart.set(Math.max(rampStart.get(), start));
                log.info("every breaker closed farm-wide: admission ramps up from {} % (×{} every {} ms)",
                        Math.round(config.rampStart() * 100), config.rampFactor(), config.rampStep().toMillis());
            }
            if (peerRampStart > rampStart.get()) rampStart.set(peerRampStart);
            boolean halfOpen = false;
            for (Dependency d : Dependency.values()) halfOpen |= breakers.get(d).getState() == CircuitBreaker.State.HALF_OPEN;
            probing = halfOpen;
            farmOpen = open;
            farmShedding = Map.copyOf(shed);
            liveNodes = 1 + peers.size();
            long start = rampStart.get();
            level = !open.isEmpty() ? 0.0 : start == 0 ? 1.0 : config.rampLevel(Duration.ofMillis(now - start));
            NodeState state = local();
            NodeState prev = lastPublished;
            boolean changed = prev == null || !prev.breakers().equals(state.breakers()) || prev.rampStart() != state.rampStart()
                    || prev.rampLevel() != state.rampLevel() || !prev.shedding().equals(state.shedding());
            if (changed || now - lastPublishMillis >= ControlChannel.HEARTBEAT_MS) {
                channel.publish(state);
                lastPublished = state;
                lastPublishMillis = now;
            }
        } catch (RuntimeException e) {
            log.warn("overload tick failed: {}", e.toString());
        }
    }

    private void readBacklog() {
        try {
            backlog.read(POOLS, Duration.ofSeconds(2));
            for (var e : backlog.seconds().entrySet()) {
                int lvl = config.sheddingLevel(e.getValue());
                Integer old = localShedding.put(e.getKey(), lvl);
                if (old == null || old != lvl) {
                    log.info("pool {}: backlog {} work-seconds, shedding level {}", e.getKey(), Math.round(e.getValue()), lvl);
                    timer.execute(this::tick);
                }
            }
        } catch (Exception e) {
            log.debug("backlog reading failed (keeping the last): {}", e.toString());
        }
    }

    private static String percent(double level) {
        return Math.round(level * 1000) / 10.0 + " %";
    }

    @Override
    public void close() {
        timer.shutdownNow();
        channel.close();
        if (backlog != null) backlog.close();
    }
}
