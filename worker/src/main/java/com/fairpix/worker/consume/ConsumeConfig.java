package com.fairpix.worker.consume;

import java.time.Duration;

/**
 * What the consumption loop is given from the {@code worker.*} settings at start-up (each value
 * bounded by its setting's constraint).
 *
 * @param sharedThreads   processing threads for the scheduler's shared slots (≥ 1)
 * @param reservedThreads processing threads for its reserved slots, at normal CPU priority (≥ 0)
 * @param sharedNice      nice value (0..19) of the shared threads: their image work yields the CPU to
 *                        the poll loop, the Kafka client and the reserved threads; 0 leaves it
 * @param readAhead       how what the worker reads ahead is bounded (per tenant, or per partition)
 * @param limits          the records and bytes it may hold
 * @param abandonAfter    a job still in one step this long is failed and its thread replaced
 *                        ({@link com.fairpix.worker.run.ProcessingThreads#abandonAfter})
 */
public record ConsumeConfig(int sharedThreads, int reservedThreads, int sharedNice, ReadAhead.Mode readAhead, ReadAhead.Limits limits,
                            Duration abandonAfter) {}
