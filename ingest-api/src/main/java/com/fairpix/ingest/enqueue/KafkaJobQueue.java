package com.fairpix.ingest.enqueue;

import com.fairpix.core.job.JobMessage;
import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.Topics;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** {@link JobQueue} on Kafka: the message as JSON, keyed by its tenant. */
final class KafkaJobQueue implements JobQueue {
    private final KafkaProducer<String, byte[]> producer;

    KafkaJobQueue(KafkaProducer<String, byte[]> producer) {
        this.producer = producer;
    }

    @Override
    public int partitions(String pool) {
        return producer.partitionsFor(Topics.jobs(pool)).size();
    }

    @Override
    public void send(JobMessage message, int partition, Duration timeout) throws Exception {
        producer.send(new ProducerRecord<>(Topics.jobs(message.pool()), partition, message.tenant(), Json.writeBytes(message)))
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
