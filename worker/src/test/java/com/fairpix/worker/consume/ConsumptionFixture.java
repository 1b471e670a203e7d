package com.fairpix.worker.consume;

import com.fairpix.core.job.JobEvent;
import com.fairpix.core.job.JobMessage;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.json.Json;
import com.fairpix.core.time.ManualClock;
import com.fairpix.worker.notify.EventPublisher;
import com.fairpix.worker.schedule.FifoScheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * A {@link JobConsumer} on Kafka's {@link MockConsumer}, a fake catch-up fetcher over the same
 * records, a FIFO scheduler, an in-memory parking list and a {@link ManualClock}, with no thread
 * started: a test turns the poll loop and runs the catch-up rounds by hand, in the order it wants,
 * and plays the processing threads by taking buffered jobs and reporting them through the
 * consumer's {@link JobConsumer.Feedback}.
 */
final class ConsumptionFixture {
    static final String TOPIC = "fairpix.jobs.cpu";
    static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    private static final JobSpec SPEC = JobSpec.parse("{\"variants\":{\"t\":[{\"op\":\"encode\",\"format\":\"jpeg\"}]}}");

    final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T00:00:00Z"));
    final RecordingConsumer kafka = new RecordingConsumer();
    final FifoScheduler<Delivery> scheduler = new FifoScheduler<>();
    /** Tenants suspended now: the consumer's held predicate. */
    final Set<String> suspended = ConcurrentHashMap.newKeySet();
    /** Job ids parked, in order. */
    final List<String> parked = new CopyOnWriteArrayList<>();
    /** While true, parking fails as it does with Redis away. */
    volatile boolean parkingDown;
    /** The partitions' log as the catch-up fetcher reads it: every record appended, by partition. */
    private final Map<TopicPartition, List<ConsumerRecord<String, byte[]>>> log = new ConcurrentHashMap<>();
    /** Runs inside the catch-up fetcher's next fetch (then is cleared): what happens while a fetch is in progress. */
    volatile Runnable duringFetch = () -> {};
    final JobConsumer consumer;

    /** @param tenantRecords records of one tenant the read-ahead holds before it reads past the tenant */
    ConsumptionFixture(int tenantRecords) {
        ConsumeConfig config = new ConsumeConfig(1, 0, 0, ReadAhead.Mode.TENANT,
                new ReadAhead.Limits(tenantRecords, 1L << 30, 256, 1L << 30, 32), Duration.ofMinutes(5));
        JobParking parking = m -> {
            if (parkingDown) throw new IllegalStateException("redis away");
            parked.add(m.jobId());
        };
        consumer = new JobConsumer(kafka, this::fetch, TOPIC, config, scheduler, new NoEvents(), suspended::contains, parking, clock,
                clock::nanoTime);
    }

    /** Subscribes and is assigned {@code partitions}, each read from offset 0. */
    ConsumptionFixture assigned(TopicPartition... partitions) {
        consumer.pollLoop().subscribe();
        kafka.rebalance(List.of(partitions));
        Map<TopicPartition, Long> beginning = new java.util.HashMap<>();
        for (TopicPartition tp : partitions) beginning.put(tp, 0L);
        kafka.updateBeginningOffsets(beginning);
        return this;
    }

    /** Appends one job record per tenant given to {@code tp}, from offset {@code from} on: job ids {@code job-<partition>-<offset>}. */
    void append(TopicPartition tp, long from, String... tenants) {
        for (int i = 0; i < tenants.length; i++) {
            long offset = from + i;
            JobMessage m = new JobMessage(JobMessage.SCHEMA_VERSION, "job-" + tp.partition() + "-" + offset, tenants[i], "cpu",
                    new JobRecord.Original("k", "jpeg", 1, "0", 1, 1), SPEC, 1.0, Instant.EPOCH);
            ConsumerRecord<String, byte[]> r = new ConsumerRecord<>(TOPIC, tp.partition(), offset, 1_000 + offset, TimestampType.CREATE_TIME,
                    0, 0, tenants[i], Json.writeBytes(m), new RecordHeaders(), Optional.empty());
            log.computeIfAbsent(tp, k -> new CopyOnWriteArrayList<>()).add(r);
            kafka.addRecord(r);
        }
    }

    /** One turn of the poll loop, the clock moved past the commit interval first. */
    void turn() {
        clock.advance(Duration.ofNanos(Commits.COMMIT_INTERVAL_NANOS));
        consumer.pollLoop().turn();
    }

    /** One round of the catch-up thread, on this thread; its results wait for the poll loop's next turn. */
    int catchUp() throws InterruptedException {
        // No wait: the manual clock does not move by itself, so a round with nothing due must return at once.
        return consumer.catchUps().fetchDue(0);
    }

    /** Offsets of the jobs buffered for {@code tp} now, in order. */
    List<Long> buffered(TopicPartition tp) {
        List<Long> out = new ArrayList<>();
        // A filter that keeps everything: it visits the queue without changing it.
        scheduler.drainIf(d -> {
            if (d.partition().equals(tp)) out.add(d.offset());
            return false;
        });
        return out.stream().sorted().toList();
    }

    /**
     * Plays the processing threads: takes the buffered jobs of {@code tp} at {@code offsets} and
     * reports them finished.
     */
    void finish(TopicPartition tp, long... offsets) {
        Set<Long> wanted = new java.util.HashSet<>();
        for (long o : offsets) wanted.add(o);
        List<Delivery> taken = scheduler.drainIf(d -> d.partition().equals(tp) && wanted.contains(d.offset()));
        if (taken.size() != wanted.size()) throw new IllegalStateException("not all of " + wanted + " buffered on " + tp + ": " + taken);
        for (Delivery d : taken) {
            consumer.feedback().taken(d);
            consumer.feedback().completed(d, true);
        }
    }

    /** Plays the processing threads: takes the buffered job of {@code tp} at {@code offset} and reports that it must run again. */
    void redeliver(TopicPartition tp, long offset) {
        List<Delivery> taken = scheduler.drainIf(d -> d.partition().equals(tp) && d.offset() == offset);
        if (taken.size() != 1) throw new IllegalStateException(offset + " not buffered on " + tp);
        consumer.feedback().taken(taken.get(0));
        consumer.feedback().completed(taken.get(0), false);
    }

    /** Hands the main cursor the records of {@code tp} from {@code from} on again, as the broker would after a seek. */
    void replay(TopicPartition tp, long from) {
        for (ConsumerRecord<String, byte[]> r : log.getOrDefault(tp, List.of())) if (r.offset() >= from) kafka.addRecord(r);
    }

    /** Plays the processing threads: finishes every buffered job. */
    void finishAll() {
        for (Delivery d : scheduler.drainIf(d -> true)) {
            consumer.feedback().taken(d);
            consumer.feedback().completed(d, true);
        }
    }

    /** The offset last committed for {@code tp} (the next to read); -1 when none was. */
    long committed(TopicPartition tp) {
        List<Long> all = commits(tp);
        return all.isEmpty() ? -1 : all.get(all.size() - 1);
    }

    /** Every offset committed for {@code tp}, in order. */
    List<Long> commits(TopicPartition tp) {
        List<Long> out = new ArrayList<>();
        for (Map<TopicPartition, OffsetAndMetadata> c : kafka.commits) {
            OffsetAndMetadata o = c.get(tp);
            if (o != null) out.add(o.offset());
        }
        return out;
    }

    /** The fake catch-up fetcher: the log of {@code tp} from {@code from} on. */
    private List<ConsumerRecord<String, byte[]>> fetch(TopicPartition tp, long from) {
        Runnable during = duringFetch;
        duringFetch = () -> {};
        during.run();
        List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> r : log.getOrDefault(tp, List.of())) if (r.offset() >= from) out.add(r);
        return out;
    }

    /**
     * Kafka's MockConsumer, recording every commit it is sent: its own {@code committed()} answers
     * offset 0 for a partition no longer assigned, which would hide what a revoke committed.
     */
    static final class RecordingConsumer extends MockConsumer<String, byte[]> {
        final List<Map<TopicPartition, OffsetAndMetadata>> commits = new CopyOnWriteArrayList<>();

        RecordingConsumer() {
            super("earliest");
        }

        @Override
        public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
            commits.add(Map.copyOf(offsets));
            super.commitSync(offsets);
        }

        @Override
        public synchronized void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
            commits.add(Map.copyOf(offsets));
            super.commitAsync(offsets, callback);
        }
    }

    /** Events go nowhere: these tests are about offsets and buffers. */
    private static final class NoEvents implements EventPublisher {
        @Override
        public void publish(JobEvent event) {}

        @Override
        public void deadLetter(String tenant, byte[] message, String reason, String detail) {}
    }
}
