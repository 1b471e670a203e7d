package com.fairpix.core.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * Consumer lag, in messages, read from Kafka's own offsets with the AdminClient: per partition,
 * the log-end offset minus the group's committed offset, following the consumer's own position
 * rules (and KEDA's Kafka scaler). A partition the group has never committed on, or whose commit
 * retention has overtaken, is read from the log-start offset (what a consumer with
 * {@code auto.offset.reset=earliest} would actually consume), never as 0 and never as the whole log
 * since offset 0: a log whose start retention moved to its end is empty, not 1,000 messages behind.
 * What Kafka itself counts, so every reader (the autoscaler, each ingest node) reads the same number.
 */
public final class ConsumerLag implements AutoCloseable {
    private final Admin admin;

    /**
     * @param clientId the admin client's id, naming the reader in the broker's logs
     * @param timeout  the admin client's request and API timeout
     */
    public ConsumerLag(String bootstrap, String clientId, Duration timeout) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        this.admin = Admin.create(p);
    }

    /**
     * The lag of one partition, messages.
     *
     * @param logStart  the partition's earliest offset (after retention)
     * @param logEnd    the partition's high watermark
     * @param committed the group's committed offset, or null when there is none
     */
    public static long of(long logStart, long logEnd, Long committed) {
        long from = committed == null ? logStart : Math.max(committed, logStart);
        return Math.max(0, logEnd - from);
    }

    /**
     * Lag per partition of {@code topic} for {@code group}, messages, every partition or none: a
     * partial reading is a failed reading. A group that never existed has committed nothing.
     *
     * @param timeout how long each of the reading's four requests may take
     * @throws Exception the admin client's failure (timeout, unknown topic, broker away)
     */
    public Map<Integer, Long> byPartition(String topic, String group, Duration timeout) throws Exception {
        long ms = timeout.toMillis();
        var description = get(admin.describeTopics(List.of(topic)).allTopicNames(), ms).get(topic);
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (var p : description.partitions()) {
            earliest.put(new TopicPartition(topic, p.partition()), OffsetSpec.earliest());
            latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
        }
        var start = get(admin.listOffsets(earliest).all(), ms);
        var end = get(admin.listOffsets(latest).all(), ms);
        Map<TopicPartition, OffsetAndMetadata> committed;
        try {
            committed = get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata(), ms);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof GroupIdNotFoundException)) throw e;
            committed = Map.of();
        }
        Map<Integer, Long> lag = new TreeMap<>();
        for (TopicPartition tp : earliest.keySet()) {
            OffsetAndMetadata c = committed.get(tp);
            lag.put(tp.partition(), of(start.get(tp).offset(), end.get(tp).offset(), c == null ? null : c.offset()));
        }
        return lag;
    }

    private static <T> T get(KafkaFuture<T> future, long timeoutMs) throws Exception {
        return future.get(timeoutMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(2));
    }
}
