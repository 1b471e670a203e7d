package com.fairpix.worker.consume;

import com.fairpix.worker.schedule.JobScheduler;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How jobs ended, reported by the processing threads and applied on the poll thread, which alone
 * touches the consumer and the {@link OffsetTracker}: a finished job's offset may be committed; a
 * job that must run again is read again from its offset (the partition is rewound there).
 */
final class Completions {
    private static final Logger log = LoggerFactory.getLogger(Completions.class);

    private record Completion(TopicPartition partition, long offset, boolean commit) {}

    private final ConcurrentLinkedQueue<Completion> queue = new ConcurrentLinkedQueue<>();
    private final Consumer<String, byte[]> consumer;
    private final JobScheduler<Delivery> scheduler;
    private final Intake intake;
    private final OffsetTracker offsets;
    private final ReadAhead readAhead;

    Completions(Consumer<String, byte[]> consumer, JobScheduler<Delivery> scheduler, Intake intake, OffsetTracker offsets, ReadAhead readAhead) {
        this.consumer = consumer;
        this.scheduler = scheduler;
        this.intake = intake;
        this.offsets = offsets;
        this.readAhead = readAhead;
    }

    /**
     * Any thread: the job is finished ({@code commit}) or must be read again from its offset.
     */
    void add(Delivery d, boolean commit) {
        queue.add(new Completion(d.partition(), d.offset(), commit));
    }

    /** Poll thread: applies what was reported since the last call. */
    void apply() {
        for (Completion c; (c = queue.poll()) != null; ) {
            if (c.commit()) {
                offsets.done(c.partition(), c.offset());
                continue;
            }
            // Not done and not committable: rewind so the job (and what follows it) is polled again.
            TopicPartition tp = c.partition();
            long offset = c.offset();
            if (consumer.assignment().contains(tp)) {
                log.info("job at {}@{} will be redelivered", tp, offset);
                for (Delivery d : scheduler.drainIf(d -> d.partition().equals(tp) && d.offset() > offset)) intake.unbuffered(d);
                offsets.forgetFrom(tp, offset);
                readAhead.rewound(tp, offset);
                consumer.seek(tp, offset);
            }
        }
    }
}
