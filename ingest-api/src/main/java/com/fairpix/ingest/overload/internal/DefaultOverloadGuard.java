package com.fairpix.ingest.overload.internal;

import com.fairpix.core.error.RetryLater;
import com.fairpix.core.resilience.Breakers;
import com.fairpix.core.resilience.Dependency;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.admission.Decision;
import com.fairpix.ingest.overload.NodeState;
import com.fairpix.ingest.overload.OverloadConfig;
import com.fairpix.ingest.overload.OverloadGuard;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * fairpix's {@link OverloadGuard}: a {@link FarmView} over a {@link FarmChannel}, a {@link Ramp}
 * and {@link Shedding}, kept current by a tick every 100 ms and at once on a breaker's transition,
 * a peer's message or a change of shedding level; each tick publishes this node's state when it
 * changed, and as a heartbeat.
 */
public final class DefaultOverloadGuard implements OverloadGuard {
    private static final Logger log = LoggerFactory.getLogger(DefaultOverloadGuard.class);
    private static final long TICK_MS = 100;

    private final OverloadConfig config;
    private final Breakers breakers;
    private final FarmChannel channel;
    private final FarmView farm;
    private final Ramp ramp;
    private final Shedding shedding;
    private final Executor reactions;
    private final Clock clock;
    private volatile ScheduledExecutorService timer;

    /**
     * @param farmCapacity the farm's admission capacity now, tokens/s (0: unknown), which the ramp
     *                     scales unless {@code overload.ramp.capacity} pins one
     * @param channel      how nodes share their state; started by {@link #start}, closed with the guard
     * @param backlog      the pools' backlogs; null when shedding is off; closed with the guard
     * @param pools        the pools whose backlogs are read
     * @param reactions    runs the tick that follows a breaker's transition, a peer's message or a
     *                     new shedding level (tests pass {@code Runnable::run})
     * @param clock        the wall clock: node states' timestamps, the ramp's start and level
     * @param nanos        monotonic clock, nanoseconds, of the ramp's token bucket
     */
    public DefaultOverloadGuard(OverloadConfig config, DoubleSupplier farmCapacity, Breakers breakers, FarmChannel channel, BacklogMonitor backlog,
                                List<String> pools, Executor reactions, Clock clock, LongSupplier nanos) {
        this.config = config;
        this.breakers = breakers;
        this.channel = channel;
        this.farm = new FarmView(breakers, channel);
        this.ramp = new Ramp(config, farmCapacity, nanos);
        this.shedding = new Shedding(config, backlog, pools);
        this.reactions = reactions;
        this.clock = clock;
        for (Dependency d : Dependency.values()) {
            // React to our own transitions at once, not at the next tick.
            breakers.get(d).getEventPublisher().onStateTransition(e -> reactions.execute(this::tick));
        }
    }

    /**
     * Starts hearing peers, and on {@code timer} the tick every 100 ms and the backlog readings
     * every {@code overload.backlog.read-ms} (when shedding is on); {@link #close} shuts it down.
     */
    public DefaultOverloadGuard start(ScheduledExecutorService timer) {
        this.timer = timer;
        channel.start(peer -> reactions.execute(this::tick));
        timer.scheduleWithFixedDelay(this::tick, 0, TICK_MS, TimeUnit.MILLISECONDS);
        if (config.shedding()) timer.scheduleWithFixedDelay(this::readBacklog, 0, config.backlogRead().toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    @Override
    public Breakers breakers() {
        return breakers;
    }

    @Override
    public OverloadConfig config() {
        return config;
    }

    @Override
    public void checkBreakers() {
        for (Dependency d : Dependency.values()) {
            CircuitBreaker.State s = breakers.get(d).getState();
            boolean localOpen = s == CircuitBreaker.State.OPEN || s == CircuitBreaker.State.FORCED_OPEN;
            // A half-open breaker here lets its probes through; one open elsewhere stops us too.
            if (localOpen || (s == CircuitBreaker.State.CLOSED && farm.open(d))) throw breakerOpen(d);
        }
    }

    @Override
    public RetryLater breakerOpen(Dependency d) {
        return RetryLater.dependency(d.id(), "The " + d.id() + " circuit breaker is open: the farm is not accepting jobs until it recovers. Try again shortly.",
                (int) Math.max(1, Math.ceilDiv(config.breakerOpen().toMillis(), 1000))).with("breaker", "open");
    }

    @Override
    public void checkAdmitted(Tenant tenant, String pool, Decision d) {
        boolean borrowed = d.borrowedNano() > 0;
        shedding.check(tenant, pool, borrowed, farm.shedding(pool));
        ramp.admit(borrowed, d.costNano(), farm.liveNodes());
    }

    @Override
    public double rampLevel() {
        return ramp.level();
    }

    @Override
    public int sheddingLevel(String pool) {
        return farm.shedding(pool);
    }

    @Override
    public double backlogSeconds(String pool) {
        return shedding.backlogSeconds(pool);
    }

    @Override
    public boolean farmBreakerOpen(Dependency d) {
        return farm.open(d);
    }

    /** This node's state as it publishes it. */
    NodeState local() {
        return new NodeState(config.nodeId(), clock.millis(), farm.ownBreakers(), ramp.start(), ramp.level(), shedding.levels(), shedding.backlogSeconds());
    }

    @Override
    public Map<String, Object> status() {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("breakers", farm.farmBreakers());
        view.put("rampLevel", ramp.level());
        view.put("rampStart", ramp.start());
        view.put("shedding", farm.shedding());
        view.put("nodes", farm.liveNodes());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("node", config.nodeId());
        out.put("farm", view);
        out.put("nodes", farm.nodes(this::local));
        return out;
    }

    /** Recomputes the farm view and the ramp; publishes this node's state on change and on the heartbeat. */
    synchronized void tick() {
        try {
            FarmView.Refresh refresh = farm.refresh(shedding.levels());
            long now = clock.millis();
            ramp.follow(refresh, farm.anyOpen(), farm.probing(), now);
            farm.publish(local(), now);
        } catch (RuntimeException e) {
            log.warn("overload tick failed: {}", e.toString());
        }
    }

    /** Reads the backlogs; a new shedding level is in the farm view at once. */
    void readBacklog() {
        if (shedding.read()) reactions.execute(this::tick);
    }

    @Override
    public void close() {
        ScheduledExecutorService t = timer;
        if (t != null) t.shutdownNow();
        channel.close();
        shedding.close();
    }
}
