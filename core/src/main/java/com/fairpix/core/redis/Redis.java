package com.fairpix.core.redis;

import java.net.URI;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;

/** Builds the pooled Jedis client from a {@code redis://host:port} URL, with short timeouts. */
public final class Redis {
    private Redis() {}

    /** @throws IllegalArgumentException when the URL has no host or port */
    public static JedisPooled connect(String url) {
        return connect(url, 2000);
    }

    /**
     * A client for pub/sub subscriptions: no read timeout, since a subscribed connection waits for
     * messages indefinitely.
     */
    public static JedisPooled subscriber(String url) {
        return connect(url, 0);
    }

    private static JedisPooled connect(String url, int socketTimeoutMillis) {
        URI uri = URI.create(url);
        if (uri.getHost() == null || uri.getPort() < 0) throw new IllegalArgumentException("Redis URL must be redis://host:port, got " + url);
        // Short timeouts: a request must fail fast with 503, never hang, when Redis is away.
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(2000)
                .socketTimeoutMillis(socketTimeoutMillis)
                .build();
        return new JedisPooled(new HostAndPort(uri.getHost(), uri.getPort()), config);
    }
}
