package com.fairpix.ingest.overload.internal;

import java.time.Duration;

/** A pool's consumer lag: the job messages its worker group has not committed yet, the same number on every node. */
public interface PoolLag extends AutoCloseable {
    /**
     * @param timeout how long the reading may take
     * @return messages not yet committed on the pool's job topic
     * @throws Exception when the queue does not answer within {@code timeout}
     */
    long lag(String pool, Duration timeout) throws Exception;

    @Override
    void close();
}
