package com.fairpix.core.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock tests move by hand, so no test sleeps (after Bucket4j's {@code TimeMeterMock}): a UTC
 * {@link Clock} plus the nanosecond and microsecond readings of the same time, which the classes
 * that take a nanosecond source read ({@code clock::nanoTime}). Moving the clock moves all three.
 */
public final class ManualClock extends Clock {
    private volatile Instant now;

    public ManualClock(Instant start) {
        this.now = start;
    }

    /** Moves the time forward by {@code d} (backward when {@code d} is negative). */
    public synchronized void advance(Duration d) {
        now = now.plus(d);
    }

    /** Sets the time to {@code t}. */
    public void set(Instant t) {
        now = t;
    }

    /** Now in nanoseconds since the epoch: a stand-in for {@link System#nanoTime()}. */
    public long nanoTime() {
        Instant t = now;
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    /** Now in µs since the epoch (what the admission scripts receive instead of Redis {@code TIME} in tests). */
    public long micros() {
        Instant t = now;
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
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
        return this;
    }
}
