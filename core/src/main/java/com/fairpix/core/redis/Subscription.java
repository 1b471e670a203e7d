package com.fairpix.core.redis;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;

/**
 * Keeps one Redis pub/sub subscription alive: Jedis's {@code subscribe} blocks while it is
 * subscribed and throws when the connection drops, and does not reconnect by itself. This loop
 * subscribes again after a loss, waiting 100 ms, doubling up to {@code maxBackoff}, and reset once
 * a subscription holds. Messages published while it is down are lost (pub/sub keeps nothing): its
 * users poll as well (the tenant directory's version check, the control channel's node states).
 */
public final class Subscription {
    private static final Logger log = LoggerFactory.getLogger(Subscription.class);

    private Subscription() {}

    /**
     * Runs on the calling thread until {@code closed} says so or the thread is interrupted; to stop
     * it, set closed, unsubscribe {@code subscriber} and interrupt the thread.
     *
     * @param connection a connection of its own (a subscribed connection can do nothing else)
     * @param what       the subscription's name in the log
     */
    public static void keep(UnifiedJedis connection, JedisPubSub subscriber, String channel, Duration maxBackoff,
                            BooleanSupplier closed, String what) {
        long backoff = 100;
        while (!closed.getAsBoolean()) {
            try {
                connection.subscribe(subscriber, channel);
                backoff = 100;
            } catch (RuntimeException e) {
                if (closed.getAsBoolean()) return;
                log.debug("{} subscription lost: {}", what, e.toString());
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
                backoff = Math.min(maxBackoff.toMillis(), backoff * 2);
            }
        }
    }
}
