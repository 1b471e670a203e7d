package com.fairpix.ingest.overload.internal;

import com.fairpix.core.error.RetryLater;
import com.fairpix.ingest.admission.Limits;
import com.fairpix.ingest.overload.OverloadConfig;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recovery ramp: once every breaker has closed farm-wide, admission restarts at
 * {@code overload.ramp.start} of the farm's capacity and grows by {@code overload.ramp.factor}
 * every {@code overload.ramp.step-ms} ({@link OverloadConfig#rampLevel}). Nodes agree on its start
 * through the farm view; each admits its share (level × capacity ÷ live nodes) through a
 * {@link RampBucket}. Traffic above tenants' guarantees waits until the ramp ends.
 */
final class Ramp {
    private static final Logger log = LoggerFactory.getLogger(Ramp.class);

    private final OverloadConfig config;
    private final DoubleSupplier farmCapacity;
    private final RampBucket bucket;
    private final AtomicLong start = new AtomicLong();
    private volatile double level = 1.0;
    private volatile boolean probing;

    /**
     * @param farmCapacity the farm's admission capacity now, tokens/s (0: unknown), unless
     *                     {@code overload.ramp.capacity} pins one
     * @param nanos        monotonic clock, nanoseconds, of the bucket
     */
    Ramp(OverloadConfig config, DoubleSupplier farmCapacity, LongSupplier nanos) {
        this.config = config;
        this.farmCapacity = farmCapacity;
        this.bucket = new RampBucket(nanos);
    }

    /**
     * Follows the farm view after a refresh: starts the ramp when the last breaker open farm-wide
     * closed (at a peer's start when one began it in the last 2 s, so nodes agree), takes a peer's
     * later start, and sets the level.
     *
     * @param openNow   whether a breaker is open farm-wide now (the level is then 0)
     * @param probing   whether this node's breakers are letting probes through (the ramp waits)
     * @param nowMillis the wall clock, epoch ms
     */
    void follow(FarmView.Refresh refresh, boolean openNow, boolean probing, long nowMillis) {
        if (refresh.wasOpen() && !openNow) {
            long s = refresh.peerRampStart() > nowMillis - 2_000 ? refresh.peerRampStart() : nowMillis;
            start.set(Math.max(start.get(), s));
            log.info("every breaker closed farm-wide: admission ramps up from {} % (×{} every {} ms)",
                    Math.round(config.rampStart() * 100), config.rampFactor(), config.rampStep().toMillis());
        }
        if (refresh.peerRampStart() > start.get()) start.set(refresh.peerRampStart());
        this.probing = probing;
        long s = start.get();
        level = openNow ? 0.0 : s == 0 ? 1.0 : config.rampLevel(Duration.ofMillis(nowMillis - s));
    }

    /**
     * Admits one job while the ramp runs: borrowed traffic waits; a job within its tenant's
     * guarantee takes its cost from this node's share of the ramped capacity (a fraction of
     * requests while no capacity is known). Half-open breakers let only their probes through
     * and the ramp starts after them.
     *
     * @param borrowed  whether the job borrows above its tenant's guarantee
     * @param costNano  its cost, nanotokens
     * @param liveNodes ingest nodes sharing the capacity
     * @throws RetryLater {@code ramp}, retry after one step
     */
    void admit(boolean borrowed, long costNano, int liveNodes) {
        double l = level;
        if (l >= 1.0 || probing) return;
        int retry = (int) Math.max(1, Math.ceilDiv(config.rampStep().toMillis(), 1000));
        if (borrowed) {
            throw RetryLater.overloaded("ramp", "The farm is recovering at " + percent(l) + " of its capacity; traffic above tenants' guarantees waits until the ramp ends.", retry);
        }
        double capacity = config.rampCapacity() > 0 ? config.rampCapacity() : farmCapacity.getAsDouble();
        // In tokens/s of the farm's capacity when it is known; a fraction of requests before any is.
        boolean fits = capacity > 0
                ? bucket.tryTake(l * capacity / liveNodes, costNano / (double) Limits.NANO)
                : ThreadLocalRandom.current().nextDouble() < l;
        if (!fits) throw RetryLater.overloaded("ramp", "The farm is recovering at " + percent(l) + " of its capacity (overload.ramp.*); try again shortly.", retry);
    }

    /** The admission level, 0..1 (0 while a breaker is open farm-wide, 1 outside a ramp). */
    double level() {
        return level;
    }

    /** When the farm's current ramp began, epoch ms; 0 = never. */
    long start() {
        return start.get();
    }

    private static String percent(double level) {
        return Math.round(level * 1000) / 10.0 + " %";
    }
}
