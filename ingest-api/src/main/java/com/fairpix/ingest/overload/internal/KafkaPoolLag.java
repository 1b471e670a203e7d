package com.fairpix.ingest.overload.internal;

import com.fairpix.core.kafka.ConsumerLag;
import com.fairpix.core.kafka.Topics;
import java.time.Duration;

/**
 * {@link PoolLag} from Kafka's own offsets ({@link ConsumerLag}): the lag of the pool's job topic
 * for its worker group, summed over the partitions. Lag is what Kafka itself counts, so every node
 * reads the same number.
 */
public final class KafkaPoolLag implements PoolLag {
    private final ConsumerLag consumerLag;

    /** @param timeout the admin client's request and API timeout */
    public KafkaPoolLag(String bootstrap, Duration timeout) {
        this.consumerLag = new ConsumerLag(bootstrap, "fairpix-ingest-backlog", timeout);
    }

    @Override
    public long lag(String pool, Duration timeout) throws Exception {
        return consumerLag.byPartition(Topics.jobs(pool), Topics.workerGroup(pool), timeout).values().stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public void close() {
        consumerLag.close();
    }
}
