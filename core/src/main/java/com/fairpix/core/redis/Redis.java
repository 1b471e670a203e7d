package com.fairpix.core.redis;

import java.net.URI;
import java.util.LinkedHashSet;
import java.util.Set;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Builds the Jedis client from {@code FAIRPIX_REDIS_URL}, with short timeouts. Forms:
 * <ul>
 *   <li>{@code redis://host:port}: one Redis server;</li>
 *   <li>{@code redis-cluster://host:port[,host:port…]}: a Redis Cluster, any reachable nodes as
 *       seeds (the client discovers the rest and follows slot moves and failovers);</li>
 *   <li>{@code redis://host:port,redis://host:port…} or {@code host:port,host:port…}: a list of
 *       seed nodes, also a Redis Cluster.</li>
 * </ul>
 * Every fairpix key a command or script touches together shares one hash slot (see
 * {@link RedisKeys}), so both forms run the same code.
 */
public final class Redis {
    private Redis() {}

    public static final String CLUSTER_SCHEME = "redis-cluster";

    /** @throws IllegalArgumentException when the URL is none of the forms above */
    public static UnifiedJedis connect(String url) {
        return connect(url, 2000, 5);
    }

    /**
     * A client for pub/sub subscriptions: no read timeout, since a subscribed connection waits for
     * messages indefinitely. On a cluster it subscribes on one node; classic pub/sub messages reach
     * every node of a cluster.
     */
    public static UnifiedJedis subscriber(String url) {
        return connect(url, 0, 5);
    }

    /**
     * A client that never sends a command twice: for scripts that are not idempotent (admission
     * spends tokens and quota). On one server the same as {@link #connect}; on a cluster one
     * attempt, so a timeout, a dead master or a MOVED after a failover fails the call (the
     * caller's failure policy applies) instead of re-running a script that may already have run.
     */
    public static UnifiedJedis connectWithoutRetries(String url) {
        return connect(url, 2000, 1);
    }

    /** Whether {@code url} names a Redis Cluster (a {@code redis-cluster://} URL or several seed nodes). */
    public static boolean isCluster(String url) {
        String u = url.trim();
        return u.startsWith(CLUSTER_SCHEME + "://") || u.contains(",");
    }

    /**
     * The nodes {@code url} names.
     *
     * @throws IllegalArgumentException when a node has no host or port
     */
    public static Set<HostAndPort> nodes(String url) {
        String u = url.trim();
        if (u.startsWith(CLUSTER_SCHEME + "://")) u = u.substring(CLUSTER_SCHEME.length() + 3);
        Set<HostAndPort> nodes = new LinkedHashSet<>();
        for (String part : u.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) continue;
            if (!p.contains("://")) p = "redis://" + p;
            URI uri;
            try {
                uri = URI.create(p);
            } catch (IllegalArgumentException e) {
                throw invalid(url);
            }
            if (!"redis".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) throw invalid(url);
            nodes.add(new HostAndPort(uri.getHost(), uri.getPort()));
        }
        if (nodes.isEmpty()) throw invalid(url);
        return nodes;
    }

    private static UnifiedJedis connect(String url, int socketTimeoutMillis, int attempts) {
        Set<HostAndPort> nodes = nodes(url);
        // Short timeouts: a request must fail fast with 503, never hang, when Redis is away.
        JedisClientConfig config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(2000)
                .socketTimeoutMillis(socketTimeoutMillis)
                .build();
        if (!isCluster(url)) return new JedisPooled(nodes.iterator().next(), config);
        // A failover takes a few seconds (cluster-node-timeout + election); retries ride it out
        // within a short budget, then the caller's failure policy applies. (Jedis re-sends a
        // command after a read timeout too: see connectWithoutRetries.)
        return RedisClusterClient.builder()
                .nodes(nodes)
                .clientConfig(config)
                .maxAttempts(attempts)
                .maxTotalRetriesDuration(java.time.Duration.ofSeconds(4))
                .build();
    }

    /**
     * Whether Redis can serve requests: PING on one server; on a cluster, the first node that
     * answers says {@code cluster_state:ok} (every slot served: a dead master whose replica took
     * over is no outage, a slot range with no live master is).
     */
    public static boolean ready(UnifiedJedis client) {
        if (!(client instanceof RedisClusterClient cluster)) return "PONG".equals(client.ping());
        // A short connection of its own per node asked: a dead node must not cost the pools' 2 s
        // connect timeout, one after another, inside a readiness probe.
        JedisClientConfig probe = DefaultJedisClientConfig.builder().connectionTimeoutMillis(250).socketTimeoutMillis(1000).build();
        for (String node : cluster.getClusterNodes().keySet()) {
            try (redis.clients.jedis.Jedis j = new redis.clients.jedis.Jedis(HostAndPort.from(node), probe)) {
                return j.clusterInfo().contains("cluster_state:ok");
            } catch (RuntimeException e) {
                // that node is down: ask the next
            }
        }
        return false;
    }

    /**
     * Whether {@code e} means Redis is (for now) unreachable or failing over, as opposed to a
     * refused command (a bug): the connection failed, the cluster client ran out of attempts, the
     * cluster is down, or a node is read-only, loading or asks to try again mid-failover.
     */
    public static boolean isOutage(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof redis.clients.jedis.exceptions.JedisConnectionException) return true;
            if (t instanceof redis.clients.jedis.exceptions.JedisClusterOperationException c && c.getMessage() != null
                    && (c.getMessage().startsWith("No more cluster attempts left") || c.getMessage().startsWith("Cluster retry deadline exceeded")
                        || c.getMessage().startsWith("No reachable node in cluster") || c.getMessage().startsWith("Could not initialize cluster slots cache"))) {
                return true;
            }
            if (t.getClass() == redis.clients.jedis.exceptions.JedisException.class && t.getMessage() != null
                    && t.getMessage().startsWith("Could not get a resource from the pool")) {
                return true;
            }
            if (t instanceof redis.clients.jedis.exceptions.JedisDataException d && d.getMessage() != null) {
                String m = d.getMessage();
                if (m.startsWith("CLUSTERDOWN") || m.startsWith("READONLY") || m.startsWith("LOADING") || m.startsWith("TRYAGAIN")
                        || m.startsWith("MASTERDOWN") || m.startsWith("BUSY")) {
                    return true;
                }
            }
        }
        return false;
    }

    private static IllegalArgumentException invalid(String url) {
        return new IllegalArgumentException("Redis URL must be redis://host:port, redis-cluster://host:port[,host:port...] "
                + "or a comma-separated list of cluster seed nodes, got " + url);
    }
}
