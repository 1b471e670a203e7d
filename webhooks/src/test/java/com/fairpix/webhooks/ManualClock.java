package com.fairpix.webhooks;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the test moves by hand; its {@link #nanoTime()} moves with it (a monotonic source for the same tests). */
public final class ManualClock extends Clock {
    private volatile Instant now;
    private final Instant start;

    public ManualClock(Instant start) {
        this.start = start;
        this.now = start;
    }

    public void advance(Duration d) {
        now = now.plus(d);
    }

    /** Nanoseconds since this clock's start. */
    public long nanoTime() {
        return Duration.between(start, now).toNanos();
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a ManualClock stays in UTC");
    }
}
