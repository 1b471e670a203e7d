package com.fairpix.autoscaler.signal;

import java.util.Map;

/**
 * Reads consumer lag per partition from Kafka. Each call returns every partition of the topic or
 * throws: a partial reading is a failed reading. Build one with {@link Signals#kafkaLag}.
 */
public interface LagReader extends AutoCloseable {
    /** Lag per partition of the pool's topic for the pool's worker group, messages. */
    Map<Integer, Long> lagByPartition(String pool) throws Exception;

    /** Lag per partition of {@code topic} for {@code group}, messages. */
    Map<Integer, Long> lagByPartition(String topic, String group) throws Exception;

    @Override
    void close();
}
