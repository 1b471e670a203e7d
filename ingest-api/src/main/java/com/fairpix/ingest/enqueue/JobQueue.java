package com.fairpix.ingest.enqueue;

import com.fairpix.core.job.JobMessage;
import java.time.Duration;
import org.apache.kafka.clients.producer.KafkaProducer;

/** Where accepted jobs wait for a worker: each pool's job topic ({@code fairpix.jobs.{pool}}), keyed by tenant. */
public interface JobQueue {
    /** The queue on Kafka through {@code producer} (acks=all; the caller closes it). */
    static JobQueue kafka(KafkaProducer<String, byte[]> producer) {
        return new KafkaJobQueue(producer);
    }

    /**
     * The number of partitions of the pool's topic.
     *
     * @throws RuntimeException when the queue cannot say (its brokers away)
     */
    int partitions(String pool);

    /**
     * Puts the job's message on {@code partition} of its pool's topic and waits until the queue has
     * it durably.
     *
     * @param timeout the longest wait for the acknowledgement
     * @throws java.util.concurrent.TimeoutException when it is not acknowledged in time
     * @throws java.util.concurrent.ExecutionException when the queue refused it or failed (the cause says which)
     * @throws InterruptedException when the waiting thread is interrupted
     */
    void send(JobMessage message, int partition, Duration timeout) throws Exception;
}
