package com.fairpix.ingest.admission;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the test moves by hand (never sleeps), as Bucket4j's TimeMeterMock. */
public final class MutableClock extends Clock {
    private volatile Instant now;

    public MutableClock(Instant start) { this.now = start; }

    public void advance(Duration d) { now = now.plus(d); }

    public void set(Instant t) { now = t; }

    /** µs since the epoch (what the Redis script receives instead of TIME in tests). */
    public long micros() { return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000; }

    @Override public ZoneId getZone() { return ZoneOffset.UTC; }
    @Override public Clock withZone(ZoneId zone) { return this; }
    @Override public Instant instant() { return now; }
}
