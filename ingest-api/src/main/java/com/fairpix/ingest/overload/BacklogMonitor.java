package com.fairpix.ingest.overload;

import com.fairpix.core.kafka.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * A pool's backlog in estimated work-seconds: its consumer lag (messages not yet committed by the
 * pool's worker group: log-end − committed offset, or − log-start for a partition the group never
 * committed) × {@code overload.backlog.job-seconds}. Lag is what Kafka itself counts, so every
 * node reads the same number; the seconds per job is the estimate an operator sets from
 * {@code fairpix_job_processing_seconds}. A failed reading keeps the last good one.
 */
final class BacklogMonitor implements AutoCloseable {
    private final Admin admin;
    private final double jobSeconds;
    private final Map<String, Double> seconds = new ConcurrentHashMap<>();

    BacklogMonitor(String bootstrap, double jobSeconds, Duration timeout) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "fairpix-ingest-backlog");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        this.admin = Admin.create(p);
        this.jobSeconds = jobSeconds;
    }

    /** Reads every pool once; throws when Kafka does not answer (the last values stay). */
    void read(List<String> pools, Duration timeout) throws Exception {
        for (String pool : pools) seconds.put(pool, lag(pool, timeout) * jobSeconds);
    }

    /** pool → backlog, work-seconds, as last read. */
    Map<String, Double> seconds() {
        return Map.copyOf(seconds);
    }

    private long lag(String pool, Duration timeout) throws Exception {
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
