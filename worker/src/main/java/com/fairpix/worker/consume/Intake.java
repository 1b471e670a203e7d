package com.fairpix.worker.consume;

import com.fairpix.core.job.JobMessage;
import com.fairpix.core.json.Json;
import com.fairpix.worker.notify.EventPublisher;
import com.fairpix.worker.schedule.JobScheduler;
import java.time.Instant;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns job records into buffered deliveries: read past when the {@link ReadAhead} holds the tenant
 * back, dead-lettered when malformed, parked when the tenant is held (suspended), else tracked by the
 * {@link OffsetTracker} and added to the scheduler. {@link #offer} and {@link #accept} run on the poll
 * thread (the tracker is not thread-safe); {@link #unbuffered} and {@link #park} on any thread.
 */
final class Intake {
    private static final Logger log = LoggerFactory.getLogger(Intake.class);

    private final ReadAhead readAhead;
    private final OffsetTracker offsets;
    private final JobScheduler<Delivery> scheduler;
    private final EventPublisher events;
    private final Predicate<String> held;
    private final JobParking parking;
    private volatile Consumer<String> onReadPast = t -> {};

    /**
     * @param held    true for a tenant whose jobs must not run now (suspended)
     * @param parking where such jobs go instead of the buffer
     */
    Intake(ReadAhead readAhead, OffsetTracker offsets, JobScheduler<Delivery> scheduler, EventPublisher events,
           Predicate<String> held, JobParking parking) {
        this.readAhead = readAhead;
        this.offsets = offsets;
        this.scheduler = scheduler;
        this.events = events;
        this.held = held;
        this.parking = parking;
    }

    /** Hears of every record read past (its tenant held back), with that tenant: metrics. Called on the poll thread. */
    void onReadPast(Consumer<String> listener) {
        this.onReadPast = listener;
    }

    /** A record from the main cursor: buffered, or read past when its tenant is held back. */
    void offer(ConsumerRecord<String, byte[]> r) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        String tenant = r.key() == null ? "" : r.key();
        if (readAhead.offer(tp, r.offset(), tenant, size(r), r.timestamp()) == ReadAhead.Verdict.READ_PAST) {
            offsets.seen(tp, r.offset());
            onReadPast.accept(tenant);
            return;
        }
        accept(r);
    }

    /** A record already counted in the read-ahead (offered, or fetched again by a catch-up): tracked and buffered. */
    void accept(ConsumerRecord<String, byte[]> r) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        offsets.track(tp, r.offset());
        JobMessage message;
        try {
            message = Json.read(r.value(), JobMessage.class);
            if (message.jobId() == null || message.tenant() == null || message.spec() == null || message.original() == null) {
                throw new IllegalArgumentException("missing members");
            }
        } catch (RuntimeException e) {
            readAhead.released(tp, r.key() == null ? "" : r.key(), size(r), r.timestamp());
            try {
                events.deadLetter(r.key(), r.value(), "malformed-message", e.getMessage());
                offsets.done(tp, r.offset());
            } catch (RuntimeException dlqDown) {
                log.warn("cannot dead-letter malformed record {}@{}: {}", tp, r.offset(), dlqDown.toString());
            }
            return;
        }
        int bytes = r.value().length;
        Instant enqueuedAt = r.timestamp() >= 0 ? Instant.ofEpochMilli(r.timestamp()) : message.submittedAt();
        if (!message.tenant().equals(r.key()) || r.timestamp() < 0) {
            // Counted under the record's key and timestamp; keep the books under the job's own.
            readAhead.released(tp, r.key() == null ? "" : r.key(), bytes, r.timestamp());
            readAhead.reserveAnyway(tp, message.tenant(), bytes, enqueuedAt.toEpochMilli());
        }
        Delivery delivery = new Delivery(tp, r.offset(), message, 1, enqueuedAt, bytes);
        if (held.test(message.tenant()) && park(delivery)) {
            unbuffered(delivery);
            offsets.done(tp, r.offset());
            return;
        }
        scheduler.add(new JobScheduler.Item<>(message.tenant(), message.schedulingCost(), delivery));
    }

    /** The delivery left the buffer (taken, dropped or parked): its room in the read-ahead is free again. */
    void unbuffered(Delivery d) {
        readAhead.released(d.partition(), d.message().tenant(), d.bytes(), d.enqueuedAt().toEpochMilli());
    }

    /** Parks a held tenant's job; false (keep it buffered) when the parking store is unreachable. */
    boolean park(Delivery d) {
        try {
            parking.park(d.message());
            return true;
        } catch (RuntimeException e) {
            log.warn("cannot park job {} of held tenant {}: {}", d.message().jobId(), d.message().tenant(), e.toString());
            return false;
        }
    }

    /** The record's value size, bytes: what it costs the read-ahead. */
    static int size(ConsumerRecord<String, byte[]> r) {
        return r.value() == null ? 0 : r.value().length;
    }
}
