package com.fairpix.autoscaler.signal.internal;

/**
 * Consumer lag of one partition, in messages, following the Kafka consumer's own position rules
 * (and KEDA's Kafka scaler): log-end offset minus the committed offset. A partition the group has
 * never committed on, or whose commit retention has overtaken, is read from the log-start offset
 * (what a consumer with {@code auto.offset.reset=earliest} would actually consume), never as 0
 * and never as the whole log since offset 0 (a
 * log whose start retention moved to its end is empty, not 1,000 messages behind).
 */
public final class ConsumerLag {
    private ConsumerLag() {}

    /**
     * @param logStart  the partition's earliest offset (after retention)
     * @param logEnd    the partition's high watermark
     * @param committed the group's committed offset, or null when there is none
     */
    public static long of(long logStart, long logEnd, Long committed) {
        long from = committed == null ? logStart : Math.max(committed, logStart);
        return Math.max(0, logEnd - from);
    }
}
