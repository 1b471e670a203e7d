package com.fairpix.worker.notify;

import com.fairpix.core.job.JobEvent;
import com.fairpix.core.job.JobMessage;
import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.Topics;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Emits job lifecycle events on {@code fairpix.events} and dead letters on {@code fairpix.jobs.dlq}. */
public final class EventPublisher {
    private static final Logger log = LoggerFactory.getLogger(EventPublisher.class);
    private final KafkaProducer<String, byte[]> producer;

    public EventPublisher(KafkaProducer<String, byte[]> producer) {
        this.producer = producer;
    }

    /**
     * Publishes and waits for the broker, so the job's offset is committed only after its event is
     * durable.
     *
     * @throws IllegalStateException when Kafka does not acknowledge within 15 s
     */
    public void publish(JobEvent event) {
        send(new ProducerRecord<>(Topics.EVENTS, event.tenant(), Json.writeBytes(event)));
    }

    /** Dead-letters a job message with the reason in headers. */
    public void deadLetter(String tenant, byte[] message, String reason, String detail) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(Topics.DLQ, tenant, message);
        record.headers().add("fairpix.reason", reason.getBytes(StandardCharsets.UTF_8));
        record.headers().add("fairpix.detail", String.valueOf(detail).getBytes(StandardCharsets.UTF_8));
        send(record);
        log.warn("dead-lettered a job of tenant {}: {} ({})", tenant, reason, detail);
    }

    /** Dead-letters a parsed job message. */
    public void deadLetter(JobMessage message, String reason, String detail) {
        deadLetter(message.tenant(), Json.writeBytes(message), reason, detail);
    }

    private void send(ProducerRecord<String, byte[]> record) {
        try {
            producer.send(record).get(15, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing to " + record.topic(), e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot publish to " + record.topic() + ": " + e.getMessage(), e);
        }
    }
}
