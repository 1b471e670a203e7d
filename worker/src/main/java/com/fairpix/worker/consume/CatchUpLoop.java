package com.fairpix.worker.consume;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catch-up of held-back tenants, in two halves. On its own thread ({@link #run}) it fetches the
 * records of tenants that have room again (the emptiest first, {@link ReadAhead#claimDue}) through
 * {@link CatchUp}, so the main poll is never held up by a fetch, and queues them. On the poll thread
 * ({@link #apply}), which alone tracks offsets and moves holds, it buffers them and moves the holds;
 * what was fetched for a partition revoked or rewound since the plan is dropped.
 */
final class CatchUpLoop {
    private static final Logger log = LoggerFactory.getLogger(CatchUpLoop.class);
    /** How long one round waits for a hold to come due, nanoseconds (a release wakes it earlier). */
    static final long CLAIM_WAIT_NANOS = 100_000_000L;
    /** Between two looks while consumption is paused (stopping, a dependency down), ms. */
    private static final long PAUSED_WAIT_MILLIS = 50;
    /** Before a failed fetch's hold may be tried again, ms. */
    private static final long FAILED_FETCH_WAIT_MILLIS = 200;

    /** What one fetch took for one hold. */
    private record Fetched(ReadAhead.CatchUp plan, List<ConsumerRecord<String, byte[]>> records, CatchUp.Result result) {}

    private final ReadAhead readAhead;
    private final CatchUp catchUp;
    private final Ownership ownership;
    private final Intake intake;
    private final OffsetTracker offsets;
    private final ConcurrentLinkedQueue<Fetched> fetched = new ConcurrentLinkedQueue<>();

    /**
     * @param catchUp the fetches, over their own consumer (closed when {@link #run} ends)
     * @param offsets the poll thread's tracker: where the main cursor has read (used in {@link #apply} only)
     */
    CatchUpLoop(ReadAhead readAhead, CatchUp catchUp, Ownership ownership, Intake intake, OffsetTracker offsets) {
        this.readAhead = readAhead;
        this.catchUp = catchUp;
        this.ownership = ownership;
        this.intake = intake;
        this.offsets = offsets;
    }

    /**
     * The catch-up thread's loop, until {@code closing} answers true or the thread is interrupted;
     * closes the fetcher on the way out.
     *
     * @param paused true while consumption is paused (stopping, a dependency down): no fetch then
     */
    void run(BooleanSupplier closing, BooleanSupplier paused) {
        try {
            while (!closing.getAsBoolean()) {
                if (paused.getAsBoolean()) {
                    Thread.sleep(PAUSED_WAIT_MILLIS);
                    continue;
                }
                fetchDue(CLAIM_WAIT_NANOS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            catchUp.close();
        }
    }

    /**
     * One round on the catch-up thread: claims the holds due, waiting up to {@code waitNanos} for
     * one, fetches each and queues what it took for {@link #apply}.
     *
     * @return how many holds it fetched
     * @throws InterruptedException when interrupted while waiting (stopping)
     */
    int fetchDue(long waitNanos) throws InterruptedException {
        List<ReadAhead.CatchUp> due = readAhead.claimDue(waitNanos);
        for (ReadAhead.CatchUp c : due) fetched.add(fetchAgain(c));
        return due.size();
    }

    private Fetched fetchAgain(ReadAhead.CatchUp c) throws InterruptedException {
        TopicPartition tp = c.partition();
        Long until = ownership.readPosition(tp);
        List<ConsumerRecord<String, byte[]>> taken = new ArrayList<>();
        if (until == null || !ownership.owns(tp)) return new Fetched(c, taken, new CatchUp.Result(c.from(), -1, 0, false));
        try {
            CatchUp.Result result = catchUp.run(tp, c.tenant(), c.from(), until, r -> {
                if (!readAhead.tryReserve(tp, c.tenant(), Intake.size(r), r.timestamp())) return false;
                taken.add(r);
                return true;
            });
            return new Fetched(c, taken, result);
        } catch (RuntimeException e) {
            log.warn("catching up tenant {} on {} from {} failed, will retry: {}", c.tenant(), tp, c.from(), e.toString());
            Thread.sleep(FAILED_FETCH_WAIT_MILLIS);
            for (ConsumerRecord<String, byte[]> r : taken) readAhead.released(tp, c.tenant(), Intake.size(r), r.timestamp());
            return new Fetched(c, List.of(), new CatchUp.Result(c.from(), -1, 0, false));
        }
    }

    /**
     * Poll thread: buffers what the catch-up thread fetched, then moves the holds (in this order, so
     * no commit passes a record that is neither tracked nor held back). A catch-up planned before a
     * rewind or revoke of its partition is dropped, its records released from the read-ahead.
     */
    void apply() {
        for (Fetched c; (c = fetched.poll()) != null; ) {
            ReadAhead.CatchUp plan = c.plan();
            TopicPartition tp = plan.partition();
            if (!ownership.owns(tp) || readAhead.generation(tp) != plan.generation()) {
                for (ConsumerRecord<String, byte[]> r : c.records()) readAhead.released(tp, plan.tenant(), Intake.size(r), r.timestamp());
                readAhead.advanced(tp, plan.tenant(), plan.generation(), plan.from(), -1, 0, false);
                continue;
            }
            for (ConsumerRecord<String, byte[]> r : c.records()) intake.accept(r);
            CatchUp.Result result = c.result();
            // The main cursor may have read on since the fetch: caught up only as far as it has read now.
            boolean caughtUpNow = result.caughtUp() && result.next() >= offsets.position(tp);
            readAhead.advanced(tp, plan.tenant(), plan.generation(), result.next(), result.nextTimestamp(), result.taken(), caughtUpNow);
            log.debug("caught up tenant {} on {} from {} (room {}): {}", plan.tenant(), tp, plan.from(), plan.room(), result);
        }
    }
}
