package com.fairpix.ingest.overload.internal;

import com.fairpix.core.kafka.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * {@link PoolLag} from Kafka's own offsets: per partition of the pool's job topic, log-end −
 * the worker group's committed offset (− log-start for a partition the group never committed).
 * Lag is what Kafka itself counts, so every node reads the same number.
 */
public final class KafkaPoolLag implements PoolLag {
    private final Admin admin;

    /** @param timeout the admin client's request and API timeout */
    public KafkaPoolLag(String bootstrap, Duration timeout) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "fairpix-ingest-backlog");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        this.admin = Admin.create(p);
    }

    @Override
    public long lag(String pool, Duration timeout) throws Exception {
        String topic = Topics.jobs(pool);
        long t = timeout.toMillis();
        var description = admin.describeTopics(List.of(topic)).allTopicNames().get(t, TimeUnit.MILLISECONDS).get(topic);
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (var p : description.partitions()) {
            earliest.put(new TopicPartition(topic, p.partition()), OffsetSpec.earliest());
            latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
        }
        var start = admin.listOffsets(earliest).all().get(t, TimeUnit.MILLISECONDS);
        var end = admin.listOffsets(latest).all().get(t, TimeUnit.MILLISECONDS);
        Map<TopicPartition, OffsetAndMetadata> committed;
        try {
            committed = admin.listConsumerGroupOffsets(Topics.workerGroup(pool)).partitionsToOffsetAndMetadata().get(t, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof GroupIdNotFoundException)) throw e;
            committed = Map.of();
        }
        long lag = 0;
        for (TopicPartition tp : earliest.keySet()) {
            OffsetAndMetadata c = committed.get(tp);
            long from = Math.max(start.get(tp).offset(), c == null ? start.get(tp).offset() : c.offset());
            lag += Math.max(0, end.get(tp).offset() - from);
        }
        return lag;
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(2));
    }
}
