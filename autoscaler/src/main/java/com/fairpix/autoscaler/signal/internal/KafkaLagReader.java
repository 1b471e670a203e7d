package com.fairpix.autoscaler.signal.internal;

import com.fairpix.autoscaler.signal.LagReader;
import com.fairpix.core.kafka.Topics;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.utils.Utils;

/**
 * Reads a pool's consumer lag per partition with the Kafka AdminClient: the topic's partitions,
 * their log-start and log-end offsets, and the worker group's committed offsets
 * ({@link ConsumerLag} explains the arithmetic). Each call either returns all partitions or throws:
 * a partial reading is a failed reading.
 */
public final class KafkaLagReader implements LagReader {
    private final Admin admin;
    private final Duration timeout;

    /** @param timeout how long one reading may take before it counts as failed */
    public KafkaLagReader(String bootstrap, Duration timeout) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "fairpix-autoscaler");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        this.admin = Admin.create(p);
        this.timeout = timeout;
    }

    @Override
    public Map<Integer, Long> lagByPartition(String pool) throws Exception {
        return lagByPartition(Topics.jobs(pool), Topics.workerGroup(pool));
    }

    @Override
    public Map<Integer, Long> lagByPartition(String topic, String group) throws Exception {
        TopicDescription description = get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
        List<TopicPartition> partitions = description.partitions().stream().map(p -> new TopicPartition(topic, p.partition())).toList();
        Map<TopicPartition, Long> start = offsets(partitions, OffsetSpec.earliest());
        Map<TopicPartition, Long> end = offsets(partitions, OffsetSpec.latest());
        Map<TopicPartition, OffsetAndMetadata> committed;
        try {
            committed = get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof GroupIdNotFoundException)) throw e;
            committed = Map.of(); // a group that never existed has committed nothing
        }
        Map<Integer, Long> lag = new TreeMap<>();
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata c = committed.get(tp);
            lag.put(tp.partition(), ConsumerLag.of(start.get(tp), end.get(tp), c == null ? null : c.offset()));
        }
        return lag;
    }

    private Map<TopicPartition, Long> offsets(Collection<TopicPartition> partitions, OffsetSpec spec) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (TopicPartition tp : partitions) request.put(tp, spec);
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> info = get(admin.listOffsets(request).all());
        Map<TopicPartition, Long> out = new HashMap<>();
        info.forEach((tp, i) -> out.put(tp, i.offset()));
        return out;
    }

    private <T> T get(org.apache.kafka.common.KafkaFuture<T> future) throws ExecutionException, InterruptedException, TimeoutException {
        return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(2));
    }
}
