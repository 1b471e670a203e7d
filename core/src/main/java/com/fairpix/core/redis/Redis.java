package com.fairpix.core.redis;

import java.net.URI;
import java.util.LinkedHashSet;
import java.util.Set;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.Protocol;
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
        return connect(url, 2000);
    }

    /**
     * A client for pub/sub subscriptions: no read timeout, since a subscribed connection waits for
     * messages indefinitely. On a cluster it subscribes on one node; classic pub/sub messages reach
     * every node of a cluster.
     */
    public static UnifiedJedis subscriber(String url) {
        return connect(url, 0);
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

    private static UnifiedJedis connect(String url, int socketTimeoutMillis) {
        Set<HostAndPort> nodes = nodes(url);
        // Short timeouts: a request must fail fast with 503, never hang, when Redis is away.
        JedisClientConfig config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(2000)
                .socketTimeoutMillis(socketTimeoutMillis)
                .build();
        if (!isCluster(url)) return new JedisPooled(nodes.iterator().next(), config);
        // A failover takes a few seconds (cluster-node-timeout + election); retries ride it out
        // within the same short budget a single node gets, then the caller's failure policy applies.
        return RedisClusterClient.builder()
                .nodes(nodes)
                .clientConfig(config)
                .maxAttempts(5)
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
        for (ConnectionPool pool : cluster.getClusterNodes().values()) {
            try (Connection c = pool.getResource()) {
                c.sendCommand(Protocol.Command.CLUSTER, "INFO");
                return c.getBulkReply().contains("cluster_state:ok");
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
                    && (c.getMessage().startsWith("No more cluster attempts left") || c.getMessage().startsWith("Cluster retry deadline exceeded"))) {
                return true;
            }
            if (t instanceof redis.clients.jedis.exceptions.JedisDataException d && d.getMessage() != null) {
                String m = d.getMessage();
                if (m.startsWith("CLUSTERDOWN") || m.startsWith("READONLY") || m.startsWith("LOADING") || m.startsWith("TRYAGAIN")
                        || m.startsWith("MASTERDOWN")) {
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
