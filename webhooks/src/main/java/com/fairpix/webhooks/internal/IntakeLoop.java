package com.fairpix.webhooks.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the events topic on its own thread and hands each record to {@link EventIntake}. Offsets
 * are committed only after their deliveries are stored; when the store is away, that partition is
 * read again from the first record not stored, a second later, rather than lose the event. Closes
 * the consumer when it stops.
 */
final class IntakeLoop implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(IntakeLoop.class);

    private final Consumer<String, byte[]> consumer;
    private final EventIntake intake;
    private volatile boolean running = true;
    private volatile boolean healthy;

    IntakeLoop(Consumer<String, byte[]> consumer, EventIntake intake) {
        this.consumer = consumer;
        this.intake = intake;
    }

    @Override
    public void run() {
        while (running) {
            try {
                ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(250));
                healthy = true;
                Map<TopicPartition, Long> retryFrom = new LinkedHashMap<>();
                for (ConsumerRecord<String, byte[]> r : records) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    if (retryFrom.containsKey(tp)) continue;
                    try {
                        intake.accept(r.value());
                    } catch (RuntimeException e) {
                        // Redis away: re-read this partition from here rather than lose the event.
                        log.warn("cannot store a webhook delivery, will retry: {}", e.toString());
                        retryFrom.put(tp, r.offset());
                    }
                }
                if (retryFrom.isEmpty()) {
                    if (!records.isEmpty()) consumer.commitSync();
                } else {
                    Map<TopicPartition, OffsetAndMetadata> commit = new LinkedHashMap<>();
                    for (TopicPartition tp : records.partitions()) {
                        long next = retryFrom.containsKey(tp) ? retryFrom.get(tp) : records.records(tp).getLast().offset() + 1;
                        commit.put(tp, new OffsetAndMetadata(next));
                    }
                    consumer.commitSync(commit);
                    retryFrom.forEach(consumer::seek);
                    Thread.sleep(1000);
                }
            } catch (WakeupException e) {
                if (!running) break;
            } catch (InterruptedException e) {
                break;
            } catch (RuntimeException e) {
                healthy = false;
                log.warn("webhook intake: {}", e.toString());
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException stop) {
                    break;
                }
            }
        }
        try {
            consumer.close(Duration.ofSeconds(5));
        } catch (RuntimeException ignored) {
            // leaving anyway
        }
    }

    /** Whether the last poll worked. */
    boolean healthy() {
        return healthy;
    }

    /** Ends the loop at its next poll (wakes a poll in progress); the loop then closes the consumer. */
    void stop() {
        running = false;
        consumer.wakeup();
    }
}
