package com.fairpix.core.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;

/** The forms FAIRPIX_REDIS_URL takes (one server, a redis-cluster:// URL, a list of seed nodes), and what counts as an outage. */
class RedisUrlTest {
    @Test
    void oneServerIsNotACluster() {
        assertThat(Redis.isCluster("redis://127.0.0.1:16379")).isFalse();
        assertThat(Redis.nodes("redis://127.0.0.1:16379")).containsExactly(new HostAndPort("127.0.0.1", 16379));
    }

    @Test
    void aClusterUrlOrASeedListNamesEveryNode() {
        String url = "redis-cluster://10.0.0.1:7000,10.0.0.2:7001";
        assertThat(Redis.isCluster(url)).isTrue();
        assertThat(Redis.nodes(url)).containsExactly(new HostAndPort("10.0.0.1", 7000), new HostAndPort("10.0.0.2", 7001));
        assertThat(Redis.isCluster("redis-cluster://10.0.0.1:7000")).as("one seed is enough for a cluster").isTrue();
        String seeds = "redis://10.0.0.1:7000, 10.0.0.2:7001";
        assertThat(Redis.isCluster(seeds)).isTrue();
        assertThat(Redis.nodes(seeds)).containsExactly(new HostAndPort("10.0.0.1", 7000), new HostAndPort("10.0.0.2", 7001));
    }

    @Test
    void aNodeWithoutHostOrPortOrAnotherSchemeIsRefusedWithTheFormsNamed() {
        for (String bad : new String[] {"redis://127.0.0.1", "redis-cluster://", "http://127.0.0.1:6379", "127.0.0.1", "redis-cluster://a:1,b"}) {
            assertThatThrownBy(() -> Redis.nodes(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("redis-cluster://host:port");
        }
    }

    @Test
    void anUnreachableOrFailingOverRedisIsAnOutageARefusedCommandIsNot() {
        assertThat(Redis.isOutage(new redis.clients.jedis.exceptions.JedisConnectionException("Failed to connect to 127.0.0.1:17000."))).isTrue();
        assertThat(Redis.isOutage(new redis.clients.jedis.exceptions.JedisClusterOperationException("No more cluster attempts left."))).isTrue();
        assertThat(Redis.isOutage(new redis.clients.jedis.exceptions.JedisClusterException("CLUSTERDOWN The cluster is down"))).isTrue();
        assertThat(Redis.isOutage(new redis.clients.jedis.exceptions.JedisDataException("READONLY You can't write against a read only replica."))).isTrue();
        assertThat(Redis.isOutage(new RuntimeException("wrapped", new redis.clients.jedis.exceptions.JedisConnectionException("reset")))).isTrue();
        assertThat(Redis.isOutage(new redis.clients.jedis.exceptions.JedisDataException("WRONGTYPE Operation against a key holding the wrong kind of value"))).isFalse();
        assertThat(Redis.isOutage(new redis.clients.jedis.exceptions.JedisClusterOperationException("Keys must belong to same hashslot."))).isFalse();
        assertThat(Redis.isOutage(new IllegalStateException("a bug"))).isFalse();
    }
}
