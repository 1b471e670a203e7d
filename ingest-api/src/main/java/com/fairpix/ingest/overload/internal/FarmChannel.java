package com.fairpix.ingest.overload.internal;

import com.fairpix.ingest.overload.NodeState;
import java.util.List;
import java.util.function.Consumer;

/**
 * How ingest nodes tell each other their overload state: each publishes its {@link NodeState} on
 * every change and at least every {@link #HEARTBEAT_MS}, hears its peers', and registers itself so
 * {@code fairpix status} can list every node. Best effort: the store behind it may be the
 * dependency that is down, and a node then decides on its own breakers.
 */
public interface FarmChannel extends AutoCloseable {
    /** Longest interval between two publications of a node's state, ms: a missed message is healed within this. */
    long HEARTBEAT_MS = 500;

    /** Starts hearing peers: {@code onPeer} gets each peer's new state (never this node's), on the channel's thread. */
    void start(Consumer<NodeState> onPeer);

    /** Publishes and registers this node's state; never throws. */
    void publish(NodeState state);

    /** The peers heard from lately enough to count (their states, this node's left out). */
    List<NodeState> freshPeers();

    /**
     * Every registered node's last state, this one's included, ordered by node id.
     *
     * @throws RuntimeException when the registry cannot be read (its store is down)
     */
    List<NodeState> registered();

    /** Stops hearing peers and withdraws this node's registration (best effort). */
    @Override
    void close();
}
