package com.fairpix.ingest.overload;

import com.fairpix.core.capacity.SubmittedCost;
import com.fairpix.core.pool.Pool;
import com.fairpix.core.resilience.Breakers;
import com.fairpix.ingest.overload.internal.BacklogMonitor;
import com.fairpix.ingest.overload.internal.DefaultOverloadGuard;
import com.fairpix.ingest.overload.internal.KafkaPoolLag;
import com.fairpix.ingest.overload.internal.MeteredOverloadGuard;
import com.fairpix.ingest.overload.internal.RedisControlChannel;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;
import redis.clients.jedis.UnifiedJedis;

/** Builds the overload guard; the only way in from outside the package. */
public final class OverloadGuards {
    private OverloadGuards() {}

    /**
     * The production guard, started: the farm view over Redis pub/sub, the backlog from Kafka's
     * consumer lag (when a bound is set), its meters bound to {@code meters}.
     *
     * @param farmCapacity     the farm's admission capacity now, tokens/s (0: unknown), which the ramp
     *                         scales unless {@code overload.ramp.capacity} pins one
     * @param measuredCapacity pool → its measured capacity, cost units/s (0: none yet), which turns
     *                         the backlog's queued cost into queue seconds
     * @param redis            short-timeout client (publishing, node registry, recent job costs)
     * @param subscriber       no-read-timeout client for the farm channel's subscription; closed with the guard
     * @param clock            the wall clock: node states' timestamps, the ramp's start, the recent job costs
     * @param nanos            monotonic clock, nanoseconds: the ramp's token bucket and the age of peers' states
     */
    public static OverloadGuard start(OverloadConfig config, DoubleSupplier farmCapacity, ToDoubleFunction<String> measuredCapacity,
                                      Breakers breakers, UnifiedJedis redis, UnifiedJedis subscriber, String kafkaBootstrap,
                                      MeterRegistry meters, Clock clock, LongSupplier nanos) {
        BacklogMonitor backlog = !config.shedding() ? null : new BacklogMonitor(new KafkaPoolLag(kafkaBootstrap, Duration.ofSeconds(2)), config.jobSeconds(),
                pool -> SubmittedCost.meanCostPerJob(redis, pool, clock.instant()), measuredCapacity);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("fairpix-overload").unstarted(r));
        DefaultOverloadGuard guard = new DefaultOverloadGuard(config, farmCapacity, breakers, new RedisControlChannel(redis, subscriber, config.nodeId(), nanos),
                backlog, Pool.NAMES, timer, clock, nanos);
        OverloadGuard metered = new MeteredOverloadGuard(guard, meters, Pool.NAMES);
        guard.start(timer);
        return metered;
    }
}
