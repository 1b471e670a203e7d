package com.fairpix.worker.consume;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;

/**
 * What a worker holds in memory of the job records it has read, and which records it reads past.
 * Thread-safe: the poll loop offers records and plans catch-ups, processing threads release what
 * they take.
 *
 * <p>In {@link Mode#TENANT} (the default) the worker never stops reading a partition for one
 * tenant. A record is buffered while its tenant holds fewer than {@code tenantRecords} records and
 * {@code tenantBytes} bytes and the worker fewer than {@code totalRecords} and {@code totalBytes};
 * otherwise the tenant is <em>held back</em> on that partition from that offset on: this and its
 * later records there are read past (not kept, not committed), and once the tenant's buffer is
 * down to half it is <em>caught up</em>: its records are fetched again from the held-back offset
 * ({@link CatchUp}) until it reaches the read position, and the hold ends. The memory a worker
 * needs is thus bounded per tenant and in all, and no tenant's backlog stalls a partition's read
 * cursor for the other tenants on it. The committed offset of a partition never passes the first
 * record held back ({@link #floor}), so a crash loses nothing. (The idea of skipping a key at its
 * limit and coming back for it is Inngest's; the bounded, per-tenant read-ahead is the one
 * Confluent's Parallel Consumer keeps per key.)
 *
 * <p>{@link Mode#PARTITION} is the earlier behaviour, kept for benchmarks: every record is buffered,
 * and a partition with {@code partitionRecords} buffered is paused, holding up every tenant behind it.
 */
public final class ReadAhead {
    /** How the read-ahead is bounded. */
    public enum Mode { TENANT, PARTITION }

    /** What to do with a record just read. */
    public enum Verdict {
        /** keep it: it is counted until {@link #released} */
        BUFFER,
        /** read past it: its tenant is held back on this partition */
        READ_PAST
    }

    /**
     * @param tenantRecords    records of one tenant held at most (TENANT mode)
     * @param tenantBytes      bytes of one tenant's records held at most (TENANT mode)
     * @param totalRecords     records held in all; in PARTITION mode every partition pauses past it
     * @param totalBytes       bytes held in all (TENANT mode)
     * @param partitionRecords records of one partition before it pauses (PARTITION mode)
     */
    public record Limits(int tenantRecords, long tenantBytes, int totalRecords, long totalBytes, int partitionRecords) {
        public Limits {
            if (tenantRecords < 1 || totalRecords < 1 || partitionRecords < 1) throw new IllegalArgumentException("record limits must be >= 1");
            if (tenantBytes < 1 || totalBytes < 1) throw new IllegalArgumentException("byte limits must be >= 1");
        }
    }

    /**
     * A tenant held back on a partition.
     *
     * @param from          the first of its records there not yet fetched again
     * @param fromTimestamp that record's timestamp, epoch ms (the age of the tenant's oldest waiting job there)
     * @param room          records it may take now
     * @param generation    the partition's generation when planned: a rewind or revoke since voids the catch-up
     */
    public record CatchUp(TopicPartition partition, String tenant, long from, long fromTimestamp, int room, long generation) {}

    private static final class Hold {
        long from;
        long fromTimestamp;
        /** Records read past and not fetched again (for metrics). */
        long count;
        /** A catch-up of this hold is under way: it is not planned again until {@link #advanced}. */
        boolean claimed;

        Hold(long from, long fromTimestamp) {
            this.from = from;
            this.fromTimestamp = fromTimestamp;
        }
    }

    private static final class Usage {
        int records;
        long bytes;
        /** Timestamps (epoch ms) of the records held, as a multiset: the oldest is the tenant's queue age. */
        final java.util.TreeMap<Long, Integer> timestamps = new java.util.TreeMap<>();
    }

    private final Mode mode;
    private final Limits limits;
    private final Map<String, Usage> tenants = new HashMap<>();
    private final Map<TopicPartition, Integer> partitions = new HashMap<>();
    private final Map<TopicPartition, Map<String, Hold>> holds = new HashMap<>();
    /** Bumped by every rewind and revoke of a partition. */
    private final Map<TopicPartition, Long> generations = new HashMap<>();
    private int records;
    private long bytes;
    private final LongSupplier nanos;

    /** @param nanos monotonic clock, nanoseconds, that bounds {@link #claimDue}'s wait */
    public ReadAhead(Mode mode, Limits limits, LongSupplier nanos) {
        this.mode = mode;
        this.limits = limits;
        this.nanos = nanos;
    }

    public Mode mode() {
        return mode;
    }

    /**
     * Decides about a record read from {@code tp} by the main cursor.
     *
     * @param bytes     the record's value size, bytes
     * @param timestamp its timestamp, epoch ms
     */
    public synchronized Verdict offer(TopicPartition tp, long offset, String tenant, int bytes, long timestamp) {
        if (mode == Mode.PARTITION) {
            reserve(tp, tenant, bytes, timestamp);
            return Verdict.BUFFER;
        }
        Map<String, Hold> held = holds.get(tp);
        Hold hold = held == null ? null : held.get(tenant);
        if (hold != null) {
            hold.count++;
            return Verdict.READ_PAST;
        }
        if (fits(tenant, bytes)) {
            reserve(tp, tenant, bytes, timestamp);
            return Verdict.BUFFER;
        }
        Hold h = new Hold(offset, timestamp);
        h.count = 1;
        holds.computeIfAbsent(tp, k -> new HashMap<>()).put(tenant, h);
        return Verdict.READ_PAST;
    }

    /** Counts a record fetched again for a held-back tenant, if it fits now; false (nothing counted) if not. */
    public synchronized boolean tryReserve(TopicPartition tp, String tenant, int bytes, long timestamp) {
        if (!fits(tenant, bytes)) return false;
        reserve(tp, tenant, bytes, timestamp);
        return true;
    }

    /**
     * Counts a record whatever the limits say: a job that was already admitted to the buffer and
     * comes back (a retry after a backoff, a job that could not be parked) must not be lost.
     */
    public synchronized void reserveAnyway(TopicPartition tp, String tenant, int bytes, long timestamp) {
        reserve(tp, tenant, bytes, timestamp);
    }

    private boolean fits(String tenant, int size) {
        Usage u = tenants.get(tenant);
        int tenantRecords = u == null ? 0 : u.records;
        long tenantBytes = u == null ? 0 : u.bytes;
        // A record larger than a whole limit still goes through alone, or it would be held back forever.
        boolean tenantFits = tenantRecords < limits.tenantRecords()
                && (tenantBytes + size <= limits.tenantBytes() || tenantRecords == 0);
        boolean totalFits = records < limits.totalRecords() && (bytes + size <= limits.totalBytes() || records == 0);
        return tenantFits && totalFits;
    }

    private void reserve(TopicPartition tp, String tenant, int size, long timestamp) {
        Usage u = tenants.computeIfAbsent(tenant, k -> new Usage());
        u.records++;
        u.bytes += size;
        u.timestamps.merge(timestamp, 1, Integer::sum);
        records++;
        bytes += size;
        partitions.merge(tp, 1, Integer::sum);
    }

    /** A buffered record left the buffer (taken by a processing thread, dropped, parked). */
    public synchronized void released(TopicPartition tp, String tenant, int size, long timestamp) {
        Usage u = tenants.get(tenant);
        if (u == null) return;
        if (!holds.isEmpty()) notifyAll(); // a catch-up may be due now
        u.records--;
        u.bytes -= size;
        u.timestamps.computeIfPresent(timestamp, (k, n) -> n > 1 ? n - 1 : null);
        if (u.records <= 0) tenants.remove(tenant);
        records--;
        bytes -= size;
        partitions.computeIfPresent(tp, (k, n) -> n > 1 ? n - 1 : null);
    }

    /**
     * Held-back tenants to fetch again now: those whose buffer is down to half its limit, while the
     * worker has room, one hold per tenant (its oldest: a tenant spread over partitions is caught up
     * oldest first, and room is not promised twice); the emptiest tenants first, then the oldest waiting.
     */
    public synchronized List<CatchUp> due() {
        if (mode == Mode.PARTITION || records >= limits.totalRecords()) return List.of();
        Map<String, CatchUp> oldest = new HashMap<>();
        int lowWater = limits.tenantRecords() / 2;
        for (var p : holds.entrySet()) {
            for (var t : p.getValue().entrySet()) {
                Usage u = tenants.get(t.getKey());
                int held = u == null ? 0 : u.records;
                if (held > lowWater || t.getValue().claimed) continue;
                int room = Math.min(limits.tenantRecords() - held, limits.totalRecords() - records);
                CatchUp c = new CatchUp(p.getKey(), t.getKey(), t.getValue().from, t.getValue().fromTimestamp, room,
                        generations.getOrDefault(p.getKey(), 0L));
                oldest.merge(t.getKey(), c, (a, b) -> a.fromTimestamp() <= b.fromTimestamp() ? a : b);
            }
        }
        List<CatchUp> out = new ArrayList<>(oldest.values());
        Map<String, Integer> held = new HashMap<>();
        tenants.forEach((t, u) -> held.put(t, u.records));
        out.sort(Comparator.<CatchUp>comparingInt(c -> held.getOrDefault(c.tenant(), 0)).thenComparingLong(CatchUp::fromTimestamp));
        return out;
    }

    /**
     * {@link #due()}, each hold returned claimed, waiting up to {@code timeoutNanos} for one to be
     * due (a release wakes the wait). A claimed hold is planned again only after {@link #advanced}.
     */
    public synchronized List<CatchUp> claimDue(long timeoutNanos) throws InterruptedException {
        long until = nanos.getAsLong() + timeoutNanos;
        List<CatchUp> due = due();
        while (due.isEmpty()) {
            long left = until - nanos.getAsLong();
            if (left <= 0) return due;
            wait(Math.max(1, left / 1_000_000));
            due = due();
        }
        for (CatchUp c : due) holds.get(c.partition()).get(c.tenant()).claimed = true;
        return due;
    }

    /** True while some tenant is held back on some partition. */
    public synchronized boolean holding() {
        return !holds.isEmpty();
    }

    /**
     * A catch-up fetched the tenant's records up to {@code next}: the hold moves there, or ends when
     * {@code caughtUp} (the fetch reached the main cursor's read position), and is no longer claimed.
     *
     * @param generation    the partition's generation the catch-up was planned in
     * @param taken         records it took (buffered)
     * @param nextTimestamp timestamp of the record at {@code next}, epoch ms, or -1 when unknown
     * @return false when the partition was rewound or revoked since: the caller drops what it fetched
     */
    public synchronized boolean advanced(TopicPartition tp, String tenant, long generation, long next, long nextTimestamp,
                                         int taken, boolean caughtUp) {
        Map<String, Hold> held = holds.get(tp);
        Hold h = held == null ? null : held.get(tenant);
        if (h != null) h.claimed = false;
        if (generations.getOrDefault(tp, 0L) != generation) return false;
        if (h == null) return true;
        if (caughtUp) {
            held.remove(tenant);
            if (held.isEmpty()) holds.remove(tp);
            return true;
        }
        if (next > h.from) {
            h.from = next;
            if (nextTimestamp >= 0) h.fromTimestamp = nextTimestamp;
        }
        h.count = Math.max(0, h.count - taken);
        return true;
    }

    /** The partition's generation: bumped by every rewind and revoke. */
    public synchronized long generation(TopicPartition tp) {
        return generations.getOrDefault(tp, 0L);
    }

    /** The first offset of {@code tp} held back for any tenant: no commit may pass it. Long.MAX_VALUE if none. */
    public synchronized long floor(TopicPartition tp) {
        Map<String, Hold> held = holds.get(tp);
        if (held == null) return Long.MAX_VALUE;
        long min = Long.MAX_VALUE;
        for (Hold h : held.values()) min = Math.min(min, h.from);
        return min;
    }

    /**
     * The partition will be read again from {@code offset} (a job there is redelivered): holds that
     * start there or later end, since the main cursor reads those records again.
     */
    public synchronized void rewound(TopicPartition tp, long offset) {
        generations.merge(tp, 1L, Long::sum);
        Map<String, Hold> held = holds.get(tp);
        if (held == null) return;
        held.values().removeIf(h -> h.from >= offset);
        if (held.isEmpty()) holds.remove(tp);
    }

    /** The partitions are gone (revoked): their holds end; buffered records are released by the caller. */
    public synchronized void forget(Collection<TopicPartition> gone) {
        for (TopicPartition tp : gone) {
            holds.remove(tp);
            generations.merge(tp, 1L, Long::sum);
        }
    }

    /** PARTITION mode: which assigned partitions should be paused now (full), given which are paused. */
    public synchronized Set<TopicPartition> full(Collection<TopicPartition> assigned, Set<TopicPartition> paused) {
        Set<TopicPartition> out = new HashSet<>();
        if (mode != Mode.PARTITION) return out;
        boolean all = records >= limits.totalRecords();
        for (TopicPartition tp : assigned) {
            int n = partitions.getOrDefault(tp, 0);
            // Hysteresis: a paused partition resumes only when half drained.
            boolean stays = paused.contains(tp) && n > limits.partitionRecords() / 2;
            if (all || n >= limits.partitionRecords() || stays) out.add(tp);
        }
        return out;
    }

    /** Records held in memory. */
    public synchronized int records() {
        return records;
    }

    /** Bytes of records held in memory. */
    public synchronized long bytes() {
        return bytes;
    }

    /** Records of {@code tenant} held in memory. */
    public synchronized int records(String tenant) {
        Usage u = tenants.get(tenant);
        return u == null ? 0 : u.records;
    }

    /** Per held-back tenant: records read past and not yet fetched again, over all partitions. */
    public synchronized Map<String, Long> heldBack() {
        Map<String, Long> out = new HashMap<>();
        holds.values().forEach(m -> m.forEach((t, h) -> out.merge(t, h.count, Long::sum)));
        return out;
    }

    /**
     * Per tenant with a job waiting here (buffered or read past): the timestamp (epoch ms) of its
     * oldest waiting record. A hold's age is that of its first record not fetched again.
     */
    public synchronized Map<String, Long> oldestWaiting() {
        Map<String, Long> out = new HashMap<>();
        tenants.forEach((t, u) -> {
            if (!u.timestamps.isEmpty()) out.put(t, u.timestamps.firstKey());
        });
        holds.values().forEach(m -> m.forEach((t, h) -> out.merge(t, h.fromTimestamp, Math::min)));
        return out;
    }
}
