package com.fairpix.worker.process;

import com.fairpix.core.error.Permanent;
import com.fairpix.core.error.RetryLater;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A job's processing time limit, checked between pipeline steps (a native OpenCV call cannot be
 * interrupted, so the limit overshoots by at most one step). Time comes from a nanosecond source
 * so tests can move it by hand.
 */
public final class Deadline {
    private final LongSupplier nanoTime;
    private final long endNanos;
    private final Duration limit;

    private Deadline(LongSupplier nanoTime, Duration limit) {
        this.nanoTime = nanoTime;
        this.limit = limit;
        this.endNanos = nanoTime.getAsLong() + limit.toNanos();
    }

    /** Starts now. @param limit how long the job may run */
    public static Deadline after(Duration limit, LongSupplier nanoTime) {
        return new Deadline(nanoTime, limit);
    }

    /** Never expires. */
    public static Deadline none() {
        return new Deadline(() -> 0L, Duration.ofNanos(Long.MAX_VALUE / 4));
    }

    /**
     * @throws Permanent {@code timeout} once the limit has passed
     * @throws RetryLater {@code interrupted} when the thread was interrupted
     */
    public void check(String step) {
        // Interrupted = the worker is stopping: not the input's fault, so the job must be redelivered, not FAILED.
        if (Thread.currentThread().isInterrupted()) throw new RetryLater(RetryLater.Kind.CAPACITY, "interrupted", "job interrupted before " + step, 0, null);
        if (nanoTime.getAsLong() - endNanos > 0) {
            throw new Permanent("timeout", "processing took longer than " + limit.toMillis() + " ms (worker.job-timeout-seconds); stopped before " + step);
        }
    }
}
