package com.fairpix.core.time;

import java.time.Clock;
import java.util.function.LongSupplier;

/**
 * The system's clocks, and the only place service code reads them (TimeRulesTest checks this).
 * A service's start-up takes its {@link Clock} and nanosecond source from here and passes them to
 * every class that decides by time, so a test can hand the same classes a manual clock instead.
 */
public final class SystemTime {
    private SystemTime() {}

    /** The system's wall clock in UTC: for timestamps, dates and ages that are compared with other nodes'. */
    public static Clock clock() {
        return Clock.systemUTC();
    }

    /**
     * The monotonic nanosecond source ({@link System#nanoTime()}): for intervals and deadlines
     * within this JVM. Its values have an arbitrary origin; only differences mean anything.
     */
    public static LongSupplier nanos() {
        return System::nanoTime;
    }
}
