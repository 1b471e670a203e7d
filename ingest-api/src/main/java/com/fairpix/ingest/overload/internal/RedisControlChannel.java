package com.fairpix.ingest.overload.internal;

import com.fairpix.core.json.Json;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.ingest.overload.NodeState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/**
 * The {@link FarmChannel} over Redis pub/sub ({@link RedisKeys#controlChannel}): each node's
 * {@link NodeState} is published there and registered under {@link RedisKeys#node} with a TTL so
 * {@code fairpix status} can list nodes. Pub/sub is at-most-once; the heartbeat heals a lost
 * message within {@link #HEARTBEAT_MS}. While Redis itself is down, each node falls back on its
 * own breakers (peers go stale after {@link #STALE_MS}).
 */
public final class RedisControlChannel implements FarmChannel {
    private static final Logger log = LoggerFactory.getLogger(RedisControlChannel.class);
    /** A peer not heard from for this long no longer counts, ms. */
    static final long STALE_MS = 3_000;
    /** TTL of a node's registration, seconds. */
    static final long NODE_TTL_SECONDS = 5;

    private final UnifiedJedis redis;
    private final UnifiedJedis subscriberConnection;
    private final String self;
    private final Map<String, Received> peers = new ConcurrentHashMap<>();
    private volatile Consumer<NodeState> onPeer = peer -> {};
    private final LongSupplier nanos;
    private final Subscriber subscriber = new Subscriber();
    private volatile boolean closed;
    private Thread thread;

    private record Received(NodeState state, long receivedNanos) {}

    /**
     * @param redis                short-timeout client for PUBLISH and the registry
     * @param subscriberConnection no-read-timeout client held by the subscription; closed with this
     * @param self                 this node's id
     * @param nanos                monotonic clock, nanoseconds, that ages what peers sent
     */
    public RedisControlChannel(UnifiedJedis redis, UnifiedJedis subscriberConnection, String self, LongSupplier nanos) {
        this.redis = redis;
        this.subscriberConnection = subscriberConnection;
        this.self = self;
        this.nanos = nanos;
    }

    @Override
    public void start(Consumer<NodeState> onPeer) {
        this.onPeer = onPeer;
        thread = Thread.ofPlatform().daemon().name("fairpix-control").start(() -> com.fairpix.core.redis.Subscription.keep(subscriberConnection, subscriber,
                RedisKeys.controlChannel(), java.time.Duration.ofSeconds(2), () -> closed, "control"));
    }

    @Override
    public void publish(NodeState state) {
        try {
            String json = Json.write(state);
            redis.publish(RedisKeys.controlChannel(), json);
            redis.set(RedisKeys.node(self), json, SetParams.setParams().ex(NODE_TTL_SECONDS));
            redis.sadd(RedisKeys.nodes(), self);
        } catch (RuntimeException e) {
            log.debug("control state not published: {}", e.toString());
        }
    }

    /** Peers heard from within {@link #STALE_MS}. */
    @Override
    public List<NodeState> freshPeers() {
        long now = nanos.getAsLong();
        List<NodeState> out = new ArrayList<>();
        for (Received r : peers.values()) {
            if (now - r.receivedNanos() < STALE_MS * 1_000_000) out.add(r.state());
        }
        return out;
    }

    /** Every registered node's last state, from Redis (registrations expire {@link #NODE_TTL_SECONDS} after a node stops). */
    @Override
    public List<NodeState> registered() {
        List<NodeState> out = new ArrayList<>();
        for (String id : redis.smembers(RedisKeys.nodes())) {
            String json = redis.get(RedisKeys.node(id));
            if (json == null) {
                redis.srem(RedisKeys.nodes(), id);
                continue;
            }
            out.add(Json.read(json, NodeState.class));
        }
        out.sort(java.util.Comparator.comparing(NodeState::node));
        return out;
    }

    private final class Subscriber extends JedisPubSub {
        @Override
        public void onMessage(String channel, String message) {
            try {
                NodeState s = Json.read(message, NodeState.class);
                if (s.node().equals(self)) return;
                peers.put(s.node(), new Received(s, nanos.getAsLong()));
                onPeer.accept(s);
            } catch (RuntimeException e) {
                log.debug("bad control message {}: {}", message, e.toString());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            if (subscriber.isSubscribed()) subscriber.unsubscribe();
        } catch (RuntimeException ignored) {
            // connection already gone
        }
        if (thread != null) thread.interrupt();
        try {
            redis.del(RedisKeys.node(self));
            redis.srem(RedisKeys.nodes(), self);
        } catch (RuntimeException ignored) {
            // expires with its TTL
        }
        subscriberConnection.close();
    }
}
