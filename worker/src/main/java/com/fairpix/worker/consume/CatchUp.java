package com.fairpix.worker.consume;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Fetches a held-back tenant's records again ({@link ReadAhead}): reads a partition from the hold's
 * offset up to the main cursor's read position and hands over the tenant's records, as many as it
 * has room for. Other tenants' records in that range were dealt with when the main cursor read
 * them and are skipped. Used from the catch-up thread only ({@link CatchUpLoop}).
 */
public final class CatchUp implements AutoCloseable {
    /** One fetch of a partition from an offset: records in offset order (possibly none). */
    public interface Fetcher extends AutoCloseable {
        List<ConsumerRecord<String, byte[]>> fetch(TopicPartition tp, long from);

        @Override
        default void close() {}
    }

    /**
     * What a scan did.
     *
     * @param next          the offset to continue from: the first of the tenant's records not taken,
     *                      or past the last record examined
     * @param nextTimestamp the timestamp of the record at {@code next} when known (a record of the tenant
     *                      not taken), else -1
     * @param taken         records handed over
     * @param caughtUp      the scan reached {@code until}: the tenant has no record left behind
     */
    public record Result(long next, long nextTimestamp, int taken, boolean caughtUp) {}

    private final Fetcher fetcher;

    public CatchUp(Fetcher fetcher) {
        this.fetcher = fetcher;
    }

    /**
     * One fetch from {@code from}: hands {@code take} each of {@code tenant}'s records in
     * [{@code from}, {@code until}) until it answers false (no room).
     *
     * @param until the main cursor's read position: records from there on are its to read
     */
    public Result run(TopicPartition tp, String tenant, long from, long until, Predicate<ConsumerRecord<String, byte[]>> take) {
        if (from >= until) return new Result(from, -1, 0, true);
        return scan(fetcher.fetch(tp, from), tenant, from, until, take);
    }

    /** The pure part of {@link #run}: what a fetched batch yields. */
    static Result scan(List<ConsumerRecord<String, byte[]>> batch, String tenant, long from, long until,
                       Predicate<ConsumerRecord<String, byte[]>> take) {
        long next = from;
        int taken = 0;
        for (ConsumerRecord<String, byte[]> r : batch) {
            if (r.offset() < from) continue;
            if (r.offset() >= until) return new Result(until, -1, taken, true);
            if (tenant.equals(r.key())) {
                if (!take.test(r)) return new Result(r.offset(), r.timestamp(), taken, false);
                taken++;
            }
            next = r.offset() + 1;
        }
        return new Result(next, -1, taken, next >= until);
    }

    /**
     * A fetcher over its own consumer: no group, assigned one partition at a time, small fetches
     * (a catch-up wants a few records, not a megabyte).
     *
     * @param maxRecords records one fetch returns at most
     * @param nanos      monotonic clock, nanoseconds, that bounds one fetch's polling
     */
    public static Fetcher kafka(Properties base, int maxRecords, java.util.function.LongSupplier nanos) {
        Properties p = new Properties();
        for (String k : List.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG)) {
            p.put(k, base.get(k));
        }
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, base.getProperty(ConsumerConfig.CLIENT_ID_CONFIG, "fairpix-worker") + "-catch-up");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxRecords);
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 256 * 1024);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p);
        return new Fetcher() {
            @Override
            public List<ConsumerRecord<String, byte[]>> fetch(TopicPartition tp, long from) {
                if (!consumer.assignment().equals(java.util.Set.of(tp))) consumer.assign(List.of(tp));
                consumer.seek(tp, from);
                long deadline = nanos.getAsLong() + 500_000_000L;
                while (nanos.getAsLong() < deadline) {
                    List<ConsumerRecord<String, byte[]>> records = consumer.poll(Duration.ofMillis(100)).records(tp);
                    if (!records.isEmpty()) return records;
                }
                return List.of();
            }

            @Override
            public void close() {
                consumer.close(Duration.ofSeconds(2));
            }
        };
    }

    @Override
    public void close() {
        try {
            fetcher.close();
        } catch (Exception ignored) {
            // closing a client on the way out
        }
    }
}
