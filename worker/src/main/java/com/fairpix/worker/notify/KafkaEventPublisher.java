package com.fairpix.worker.notify;

import com.fairpix.core.job.JobEvent;
import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.Topics;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link EventPublisher} on Kafka: each send waits up to 15 s for the broker's acknowledgement.
 * A send that fails or times out throws {@link com.fairpix.core.error.RetryLater} (dependency
 * {@code kafka}, an outage); one Kafka refuses as a client error ({@code RecordTooLarge}, …) throws
 * {@link IllegalStateException}.
 */
final class KafkaEventPublisher implements EventPublisher {
    private static final Logger log = LoggerFactory.getLogger(KafkaEventPublisher.class);
    private final KafkaProducer<String, byte[]> producer;

    KafkaEventPublisher(KafkaProducer<String, byte[]> producer) {
        this.producer = producer;
    }

    @Override
    public void publish(JobEvent event) {
        send(new ProducerRecord<>(Topics.EVENTS, event.tenant(), Json.writeBytes(event)));
    }

    @Override
    public void deadLetter(String tenant, byte[] message, String reason, String detail) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(Topics.DLQ, tenant, message);
        record.headers().add("fairpix.reason", reason.getBytes(StandardCharsets.UTF_8));
        record.headers().add("fairpix.detail", String.valueOf(detail).getBytes(StandardCharsets.UTF_8));
        send(record);
        log.warn("dead-lettered a job of tenant {}: {} ({})", tenant, reason, detail);
    }

    private void send(ProducerRecord<String, byte[]> record) {
        try {
            producer.send(record).get(15, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing to " + record.topic(), e);
        } catch (Exception e) {
            if (com.fairpix.core.resilience.ClientErrors.is(e)) {
                // Kafka refused this record (too large, …): an answer about it, not an outage.
                throw new IllegalStateException("cannot publish to " + record.topic() + ": " + e.getMessage(), e);
            }
            // Not acknowledged in time, or the broker failed: Kafka is out, the job is not at fault.
            throw new com.fairpix.core.error.RetryLater(com.fairpix.core.error.RetryLater.Kind.DEPENDENCY, "kafka",
                    "cannot publish to " + record.topic() + ": " + e, 0, e);
        }
    }
}
