package com.fairpix.autoscaler.signal.internal;

import com.fairpix.autoscaler.signal.LagReader;
import com.fairpix.core.kafka.ConsumerLag;
import com.fairpix.core.kafka.Topics;
import java.time.Duration;
import java.util.Map;

/**
 * Reads a pool's consumer lag per partition from Kafka ({@link ConsumerLag} holds the arithmetic).
 * Each call either returns all partitions or throws: a partial reading is a failed reading.
 */
public final class KafkaLagReader implements LagReader {
    private final ConsumerLag consumerLag;
    private final Duration timeout;

    /** @param timeout how long one reading may take before it counts as failed */
    public KafkaLagReader(String bootstrap, Duration timeout) {
        this.consumerLag = new ConsumerLag(bootstrap, "fairpix-autoscaler", timeout);
        this.timeout = timeout;
    }

    @Override
    public Map<Integer, Long> lagByPartition(String pool) throws Exception {
        return lagByPartition(Topics.jobs(pool), Topics.workerGroup(pool));
    }

    @Override
    public Map<Integer, Long> lagByPartition(String topic, String group) throws Exception {
        return consumerLag.byPartition(topic, group, timeout);
    }

    @Override
    public void close() {
        consumerLag.close();
    }
}
