package com.fairpix.core.usage;

import com.fairpix.core.job.JobRecord;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * Measured usage of finished jobs, rolled up per tenant per UTC hour and per UTC day. A job is
 * counted once, when it reaches DONE or FAILED, however often it was retried or redelivered
 * (docs/usage.md).
 *
 * <p>Redis in production ({@link #redis}); {@link #NONE} where nothing is recorded.
 */
public interface UsageLedger {
    /** Records nothing and reads nothing (tests of other parts, tools without Redis). */
    UsageLedger NONE = new UsageLedger() {
        @Override public boolean record(JobRecord finished) { return false; }
        @Override public List<Day> days(String tenant, LocalDate from, LocalDate to) { return List.of(); }
        @Override public UsageTotals window(String tenant, Instant from, Instant to) { return UsageTotals.NONE; }
        @Override public void export(LocalDate from, LocalDate to, String tenant, RowSink sink) {}
    };

    /** The ledger in Redis. */
    static UsageLedger redis(UnifiedJedis redis, UsageRetention retention) {
        return new RedisUsageLedger(redis, retention);
    }

    /**
     * Counts a finished job into its tenant's hour and day (those of its {@code finishedAt}, UTC),
     * unless it was counted already. Idempotent: a retried call, a redelivered job, a second worker
     * count nothing twice.
     *
     * @param finished a DONE or FAILED record, as stored
     * @return true when this call counted it; false when it had been counted before
     * @throws redis.clients.jedis.exceptions.JedisException when Redis is away
     */
    boolean record(JobRecord finished);

    /** The tenant's figures for each UTC day {@code from}..{@code to} (inclusive), every day listed (zeros where none). */
    List<Day> days(String tenant, LocalDate from, LocalDate to);

    /** The tenant's figures over the UTC hours that hold {@code from} up to (not including) {@code to}, summed. */
    UsageTotals window(String tenant, Instant from, Instant to);

    /**
     * Every tenant's figures for each UTC day {@code from}..{@code to} (inclusive), a day at a time in
     * order, each day's tenants in id order; tenant-days without a finished job are not listed.
     *
     * @param tenant only this tenant's rows, or null for all
     */
    void export(LocalDate from, LocalDate to, String tenant, RowSink sink);

    /**
     * {@link #export}'s rows as stored, for a writer that copies them through (the CSV export): the
     * tenant id and the figures as UTF-8 bytes, the figures in {@link UsageTotals#encode()}'s form
     * (all eight, comma-separated). Same rows, same order; no figure parsed and formatted again.
     */
    default void exportEncoded(LocalDate from, LocalDate to, String tenant, EncodedRowSink sink) {
        export(from, to, tenant, (day, t, u) -> sink.row(day, t.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                u.encode().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    /** Takes {@link #exportEncoded}'s rows as they are read; the arrays are the sink's to keep. */
    @FunctionalInterface
    interface EncodedRowSink {
        void row(LocalDate day, byte[] tenant, byte[] figures);
    }

    /** One UTC day's figures of one tenant. */
    record Day(LocalDate day, UsageTotals usage) {}

    /** Takes the export's rows as they are read. */
    @FunctionalInterface
    interface RowSink {
        void row(LocalDate day, String tenant, UsageTotals usage);
    }
}
