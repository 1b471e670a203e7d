package com.fairpix.autoscaler.signal;

import java.time.Instant;

/** Where the autoscaler's readings come from. Implementations never throw: a failure is a failed reading. */
public interface SignalSource extends AutoCloseable {
    /** Reads the load of {@code pool} now; {@link PoolSignals#failed} when any part of the reading failed. */
    PoolSignals read(String pool, Instant now);

    @Override
    default void close() {}
}
