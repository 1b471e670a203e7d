package com.fairpix.ingest.overload;

import com.fairpix.core.kafka.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * A pool's backlog as queue time: the seconds its workers need to drain its consumer lag (messages
 * not yet committed by the pool's worker group: log-end − committed offset, or − log-start for a
 * partition the group never committed). Lag is what Kafka itself counts, so every node reads the
 * same number. Seconds per queued message: with {@code overload.backlog.job-seconds} 0 (the
 * default), measured, the mean cost of recent jobs ÷ the pool's measured capacity (cost units/s
 * over all its replicas); when either is missing (no job accepted in the last minute, which hard
 * shedding itself can cause, or no fresh worker figure) the last measured value for the pool
 * stays, and before any, 1 s. A positive {@code job-seconds} pins it. A failed reading keeps the
 * last good one.
 */
final class BacklogMonitor implements AutoCloseable {
    /** Seconds per job while the conversion cannot be measured and none is pinned. */
    static final double UNMEASURED_JOB_SECONDS = 1;

    private final Admin admin;
    private final double jobSeconds;
    private final java.util.function.ToDoubleFunction<String> measuredCapacity;
    private final redis.clients.jedis.UnifiedJedis redis;
    private final java.time.Clock clock;
    private final Map<String, Double> seconds = new ConcurrentHashMap<>();
    /** pool → the last measured seconds per queued message. */
    private final Map<String, Double> lastSecondsPerJob = new ConcurrentHashMap<>();

    /**
     * @param jobSeconds seconds per queued job; 0 = measured
     * @param redis      where the pool's recent costs are read (measured mode)
     * @param measuredCapacity pool → its measured capacity, cost units/s (0: none yet), as the
     *                   ingest's FarmCapacity last read it (one reader of the workers' figures)
     */
    BacklogMonitor(String bootstrap, double jobSeconds, Duration timeout, redis.clients.jedis.UnifiedJedis redis,
                   java.util.function.ToDoubleFunction<String> measuredCapacity, java.time.Clock clock) {
        this.redis = redis;
        this.clock = clock;
        this.measuredCapacity = measuredCapacity;
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "fairpix-ingest-backlog");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        this.admin = Admin.create(p);
        this.jobSeconds = jobSeconds;
    }

    /** Reads every pool once; throws when Kafka does not answer (the last values stay). */
    void read(List<String> pools, Duration timeout) throws Exception {
        for (String pool : pools) {
            long lag = lag(pool, timeout);
            if (jobSeconds > 0) {
                seconds.put(pool, lag * jobSeconds);
                continue;
            }
            java.time.Instant now = clock.instant();
            double perJob = Double.NaN;
            double costPerSecond = 0;
            try {
                perJob = com.fairpix.core.capacity.SubmittedCost.meanCostPerJob(redis, pool, now);
                costPerSecond = measuredCapacity.applyAsDouble(pool);
            } catch (RuntimeException e) {
                // Redis away: the unmeasured conversion, not a stale or a zero one.
            }
            double perMessage = secondsPerJob(perJob, costPerSecond, lastSecondsPerJob.getOrDefault(pool, UNMEASURED_JOB_SECONDS));
            if (measured(perJob, costPerSecond)) lastSecondsPerJob.put(pool, perMessage);
            seconds.put(pool, lag * perMessage);
        }
    }

    private static boolean measured(double costPerJob, double costPerSecond) {
        return costPerJob > 0 && Double.isFinite(costPerJob) && costPerSecond > 0 && Double.isFinite(costPerSecond);
    }

    /**
     * Seconds of the pool's time per queued message: {@code costPerJob ÷ costPerSecond} when both are
     * measured (positive, finite), else {@code previous} (the last measured value, or
     * {@value #UNMEASURED_JOB_SECONDS} s before any).
     *
     * @param costPerJob    mean cost units of recent jobs (NaN: none)
     * @param costPerSecond the pool's measured capacity, cost units/s (0: no figure)
     */
    static double secondsPerJob(double costPerJob, double costPerSecond, double previous) {
        return measured(costPerJob, costPerSecond) ? costPerJob / costPerSecond : previous;
    }

    /** pool → backlog, work-seconds, as last read. */
    Map<String, Double> seconds() {
        return Map.copyOf(seconds);
    }

    private long lag(String pool, Duration timeout) throws Exception {
        String topic = Topics.jobs(pool);
        long t = timeout.toMillis();
        var description = admin.describeTopics(List.of(topic)).allTopicNames().get(t, TimeUnit.MILLISECONDS).get(topic);
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (var p : description.partitions()) {
            earliest.put(new TopicPartition(topic, p.partition()), OffsetSpec.earliest());
            latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
        }
        var start = admin.listOffsets(earliest).all().get(t, TimeUnit.MILLISECONDS);
        var end = admin.listOffsets(latest).all().get(t, TimeUnit.MILLISECONDS);
        Map<TopicPartition, OffsetAndMetadata> committed;
        try {
            committed = admin.listConsumerGroupOffsets(Topics.workerGroup(pool)).partitionsToOffsetAndMetadata().get(t, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof GroupIdNotFoundException)) throw e;
            committed = Map.of();
        }
        long lag = 0;
        for (TopicPartition tp : earliest.keySet()) {
            OffsetAndMetadata c = committed.get(tp);
            long from = Math.max(start.get(tp).offset(), c == null ? start.get(tp).offset() : c.offset());
            lag += Math.max(0, end.get(tp).offset() - from);
        }
        return lag;
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(2));
    }
}
