package com.fairpix.ingest.overload.internal;

import com.fairpix.core.resilience.Breakers;
import com.fairpix.core.resilience.Dependency;
import com.fairpix.ingest.overload.NodeState;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The farm's overload state as this node sees it: its own circuit breakers and what its fresh
 * peers published on the {@link FarmChannel} (their breakers, ramp start, shedding levels). A
 * breaker open on any node stops every node; the highest shedding level of a pool wins.
 */
final class FarmView {
    private final Breakers breakers;
    private final FarmChannel channel;
    private volatile Set<Dependency> open = EnumSet.noneOf(Dependency.class);
    private volatile Map<String, Integer> shedding = Map.of();
    private volatile boolean probing;
    private volatile int liveNodes = 1;
    private NodeState lastPublished;
    private long lastPublishMillis;

    FarmView(Breakers breakers, FarmChannel channel) {
        this.breakers = breakers;
        this.channel = channel;
    }

    /**
     * What one refresh saw.
     *
     * @param wasOpen       whether a breaker was open farm-wide before the refresh
     * @param peerRampStart the latest ramp start a fresh peer published, epoch ms; 0 = none
     */
    record Refresh(boolean wasOpen, long peerRampStart) {}

    /**
     * Recomputes the view from this node's breakers, its own shedding levels and its fresh peers.
     *
     * @param localShedding pool → this node's shedding level
     */
    Refresh refresh(Map<String, Integer> localShedding) {
        List<NodeState> peers = channel.freshPeers();
        Set<Dependency> nowOpen = EnumSet.noneOf(Dependency.class);
        long peerRampStart = 0;
        Map<String, Integer> shed = new LinkedHashMap<>(localShedding);
        for (NodeState p : peers) {
            for (Dependency d : Dependency.values()) {
                String s = p.breakers().getOrDefault(d.id(), "CLOSED");
                if (!s.equals("CLOSED") && !s.equals("DISABLED")) nowOpen.add(d);
            }
            peerRampStart = Math.max(peerRampStart, p.rampStart());
            p.shedding().forEach((pool, lvl) -> shed.merge(pool, lvl, Math::max));
        }
        boolean wasOpen = !open.isEmpty(); // the last refresh's view, this node's breakers included
        boolean halfOpen = false;
        for (Dependency d : Dependency.values()) {
            CircuitBreaker.State s = breakers.get(d).getState();
            if (s != CircuitBreaker.State.CLOSED) nowOpen.add(d);
            halfOpen |= s == CircuitBreaker.State.HALF_OPEN;
        }
        probing = halfOpen;
        open = nowOpen;
        shedding = Map.copyOf(shed);
        liveNodes = 1 + peers.size();
        return new Refresh(wasOpen, peerRampStart);
    }

    /** Publishes {@code state} when it differs from the last one published, or a heartbeat after it. */
    void publish(NodeState state, long nowMillis) {
        NodeState prev = lastPublished;
        boolean changed = prev == null || !prev.breakers().equals(state.breakers()) || prev.rampStart() != state.rampStart()
                || prev.rampLevel() != state.rampLevel() || !prev.shedding().equals(state.shedding());
        if (changed || nowMillis - lastPublishMillis >= FarmChannel.HEARTBEAT_MS) {
            channel.publish(state);
            lastPublished = state;
            lastPublishMillis = nowMillis;
        }
    }

    /** Whether {@code d}'s breaker is open on this node or on a fresh peer (this node's own: not CLOSED). */
    boolean open(Dependency d) {
        return open.contains(d);
    }

    /** Whether any dependency's breaker is open farm-wide. */
    boolean anyOpen() {
        return !open.isEmpty();
    }

    /** Whether one of this node's breakers is half-open, letting its probes through. */
    boolean probing() {
        return probing;
    }

    /** This node and its fresh peers. */
    int liveNodes() {
        return liveNodes;
    }

    /** The pool's shedding level farm-wide: 0 none, 1 borrowed traffic, 2 all but the reserved share. */
    int shedding(String pool) {
        return shedding.getOrDefault(pool, 0);
    }

    /** pool → shedding level farm-wide. */
    Map<String, Integer> shedding() {
        return shedding;
    }

    /** dependency id → this node's own breaker state (CLOSED, OPEN, HALF_OPEN, ...), as it publishes them. */
    Map<String, String> ownBreakers() {
        Map<String, String> b = new LinkedHashMap<>();
        for (Dependency d : Dependency.values()) b.put(d.id(), breakers.get(d).getState().name());
        return b;
    }

    /** dependency id → this node's breaker state, or OPEN when it is closed here but open on a peer. */
    Map<String, String> farmBreakers() {
        Map<String, String> b = new LinkedHashMap<>();
        for (Dependency d : Dependency.values()) {
            String own = breakers.get(d).getState().name();
            b.put(d.id(), !own.equals("CLOSED") ? own : open.contains(d) ? "OPEN" : "CLOSED");
        }
        return b;
    }

    /** Every registered node's state; while the registry cannot be read, the fresh peers' and {@code local}. */
    List<NodeState> nodes(Supplier<NodeState> local) {
        try {
            return channel.registered();
        } catch (RuntimeException e) {
            // Redis down: what this node knows.
            List<NodeState> nodes = new ArrayList<>(channel.freshPeers());
            nodes.add(local.get());
            return nodes;
        }
    }
}
