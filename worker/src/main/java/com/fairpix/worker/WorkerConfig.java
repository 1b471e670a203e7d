package com.fairpix.worker;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.pool.Pool;
import com.fairpix.core.resilience.BreakerSettings;
import com.fairpix.worker.consume.ConsumeConfig;
import com.fairpix.worker.consume.ReadAhead;
import com.fairpix.worker.schedule.SchedulerKind;
import java.time.Duration;

/**
 * The worker's settings, read once at start-up ({@link #from}) and handed down to what it builds.
 * Keys, docs, defaults and each value's bounds are declared in {@link Setting}; the worker has no
 * rule across its settings beyond those bounds.
 *
 * @param pool              the pool it consumes
 * @param scheduler         its dispatch order across tenants
 * @param consume           the consumption loop's threads, read-ahead bounds and watchdog
 * @param finishingThreads  threads that write processed jobs' results; 0 = each processing thread writes its own
 * @param maxAttempts       attempts of a transiently failing job before it is dead-lettered
 * @param maxPixels         largest source it decodes, pixels
 * @param jobTimeout        limit on one job's decode and processing, checked between pipeline steps
 * @param nativeMemoryBytes off-heap pixel memory all running jobs may hold, bytes
 * @param maxPollInterval   Kafka's {@code max.poll.interval.ms}
 * @param maxResultBytes    largest result it writes, bytes ({@code ingest.max-upload-bytes})
 * @param jobRetention      how long job records stay in Redis
 * @param tenantLabels      tenants with their own {@code tenant} label in /metrics
 * @param breakers          the S3 circuit breaker's settings
 * @param processors        where image work runs: in processor processes or in this JVM
 * @param processorMemoryMb memory one processor may take for a job, MiB
 */
public record WorkerConfig(Pool pool, SchedulerKind scheduler, ConsumeConfig consume, int finishingThreads, int maxAttempts, long maxPixels,
                           Duration jobTimeout, long nativeMemoryBytes, Duration maxPollInterval, long maxResultBytes, Duration jobRetention,
                           int tenantLabels, BreakerSettings breakers, Processors processors, int processorMemoryMb) {

    /** {@code worker.processors}: where image work runs. */
    public enum Processors {
        /** Supervised processor processes (docs/processors.md). */
        PROCESS,
        /** The worker's own JVM. */
        IN_PROCESS
    }

    /** The {@code worker.*} settings and the shared ones the worker uses. */
    public static WorkerConfig from(FairpixConfig c) {
        SchedulerKind scheduler = c.choice(Setting.WORKER_SCHEDULER, SchedulerKind.class);
        int threads = c.integer(Setting.WORKER_THREADS) > 0 ? c.integer(Setting.WORKER_THREADS) : Runtime.getRuntime().availableProcessors();
        // FIFO, the baseline, knows no tenants to reserve a thread for: it runs the shared threads only.
        int reservedThreads = scheduler.reservesSlots() ? c.integer(Setting.WORKER_RESERVED_THREADS) : 0;
        Duration jobTimeout = Duration.ofSeconds(c.longValue(Setting.WORKER_JOB_TIMEOUT_SECONDS));
        ReadAhead.Limits limits = new ReadAhead.Limits(c.integer(Setting.WORKER_TENANT_BUFFER), c.longValue(Setting.WORKER_TENANT_BUFFER_BYTES),
                c.integer(Setting.WORKER_BUFFERED_JOBS), c.longValue(Setting.WORKER_BUFFERED_BYTES), c.integer(Setting.WORKER_PARTITION_BUFFER));
        // The kill-and-fail path for a step the time limit cannot stop: twice the limit and 30 s more.
        ConsumeConfig consume = new ConsumeConfig(threads, reservedThreads, c.integer(Setting.WORKER_SHARED_NICE),
                c.choice(Setting.WORKER_READ_AHEAD, ReadAhead.Mode.class), limits, jobTimeout.multipliedBy(2).plusSeconds(30));
        return new WorkerConfig(c.choice(Setting.WORKER_POOL, Pool.class), scheduler, consume, c.integer(Setting.WORKER_FINISHING_THREADS),
                c.integer(Setting.WORKER_MAX_ATTEMPTS), c.longValue(Setting.WORKER_MAX_PIXELS), jobTimeout,
                c.longValue(Setting.WORKER_NATIVE_MEMORY_BYTES), Duration.ofMillis(c.integer(Setting.WORKER_MAX_POLL_INTERVAL_MS)),
                c.longValue(Setting.MAX_UPLOAD_BYTES), Duration.ofSeconds(c.longValue(Setting.JOB_RETENTION_SECONDS)),
                c.integer(Setting.METRICS_TENANT_LABELS), BreakerSettings.from(c), c.choice(Setting.WORKER_PROCESSORS, Processors.class),
                c.integer(Setting.WORKER_PROCESSOR_MEMORY_MB));
    }
}
