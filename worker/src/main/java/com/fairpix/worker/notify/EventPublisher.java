package com.fairpix.worker.notify;

import com.fairpix.core.job.JobEvent;
import com.fairpix.core.job.JobMessage;
import com.fairpix.core.json.Json;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Where the worker tells the farm how jobs ended: lifecycle events on {@code fairpix.events} and
 * dead letters on {@code fairpix.jobs.dlq}. Each call returns once the broker has the record, so a
 * job's offset is committed only after its event is durable.
 */
public interface EventPublisher {
    /** The publisher on Kafka through {@code producer} (which the caller closes). */
    static EventPublisher kafka(KafkaProducer<String, byte[]> producer) {
        return new KafkaEventPublisher(producer);
    }

    /**
     * Publishes a job's event, keyed by its tenant.
     *
     * @throws com.fairpix.core.error.RetryLater when it is not acknowledged in time (Kafka is out)
     * @throws IllegalStateException            when Kafka refuses the record itself
     */
    void publish(JobEvent event);

    /**
     * Dead-letters a job message as it was read, with the reason and detail in headers.
     *
     * @throws com.fairpix.core.error.RetryLater when it is not acknowledged in time (Kafka is out)
     * @throws IllegalStateException            when Kafka refuses the record itself
     */
    void deadLetter(String tenant, byte[] message, String reason, String detail);

    /** Dead-letters a parsed job message. */
    default void deadLetter(JobMessage message, String reason, String detail) {
        deadLetter(message.tenant(), Json.writeBytes(message), reason, detail);
    }
}
