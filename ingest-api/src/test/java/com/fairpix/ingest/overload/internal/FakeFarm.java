package com.fairpix.ingest.overload.internal;

import com.fairpix.core.resilience.BreakerSettings;
import com.fairpix.core.resilience.Breakers;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.admission.Decision;
import com.fairpix.ingest.admission.Limits;
import com.fairpix.ingest.overload.NodeState;
import com.fairpix.ingest.overload.OverloadConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** Small fakes of the guard's own ports, and the values its tests build. */
final class FakeFarm {
    static final Tenant ACME = Tenant.withDefaults("acme");

    private FakeFarm() {}

    /** The peers' states as a test sets them, and what this node published. */
    static final class Channel implements FarmChannel {
        final List<NodeState> published = new CopyOnWriteArrayList<>();
        final Map<String, NodeState> peers = new ConcurrentHashMap<>();
        volatile boolean registryDown;
        volatile boolean closed;

        @Override
        public void start(Consumer<NodeState> onPeer) {}

        @Override
        public void publish(NodeState state) {
            published.add(state);
        }

        @Override
        public List<NodeState> freshPeers() {
            return new ArrayList<>(peers.values());
        }

        @Override
        public List<NodeState> registered() {
            if (registryDown) throw new IllegalStateException("registry down");
            List<NodeState> all = new ArrayList<>(peers.values());
            if (!published.isEmpty()) all.add(published.getLast());
            all.sort(java.util.Comparator.comparing(NodeState::node));
            return all;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** Each pool's lag as a test sets it, in messages. */
    static final class Lag implements PoolLag {
        final Map<String, Long> messages = new ConcurrentHashMap<>();
        volatile boolean closed;

        @Override
        public long lag(String pool, Duration timeout) {
            return messages.getOrDefault(pool, 0L);
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /**
     * Ramp from 10 %, doubling every second, over a pinned 100 tokens/s; shedding above 60 s (borrowed)
     * and 300 s (all but {@code reservedShare}) of backlog, or off; breakers open 5 s.
     */
    static OverloadConfig config(boolean shedding, double reservedShare) {
        return new OverloadConfig(0.1, 2, Duration.ofSeconds(1), 100, 1, shedding ? 60 : 0, shedding ? 300 : 0, reservedShare,
                Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5), "node-a");
    }

    static Breakers breakers() {
        return Breakers.of(new BreakerSettings(50, 80, Duration.ofSeconds(1), 20, 5, Duration.ofSeconds(5), 10, 95));
    }

    /** An admitted job of {@code tokens}, of which {@code borrowed} above the tenant's guarantee. */
    static Decision admitted(double tokens, double borrowed) {
        return new Decision(true, Set.of(), Set.of(), (long) (tokens * Limits.NANO), 0, 0, 0, 0, (long) (borrowed * Limits.NANO), 0, null, false);
    }

    /** A peer's published state: its breakers (dependency id → state), ramp start and shedding levels. */
    static NodeState peer(String node, Map<String, String> breakers, long rampStart, Map<String, Integer> shedding) {
        return new NodeState(node, 0, breakers, rampStart, 1.0, shedding, Map.of());
    }
}
