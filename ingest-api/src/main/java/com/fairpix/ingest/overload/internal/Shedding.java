package com.fairpix.ingest.overload.internal;

import com.fairpix.core.error.RetryLater;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.overload.OverloadConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Backlog shedding: this node reads each pool's backlog as queue seconds ({@link BacklogMonitor})
 * and sets its shedding level from the bounds ({@link OverloadConfig#sheddingLevel}); the farm
 * view's level (the highest of any node) decides. Above the soft bound traffic above a tenant's
 * guarantee is shed; above the hard bound all but a reserved share of requests.
 */
final class Shedding {
    private static final Logger log = LoggerFactory.getLogger(Shedding.class);
    /** Retry-After of a shedding 503 while this node has no backlog reading, seconds: a few readings, time for workers to drain some. */
    static final int SHED_RETRY_AFTER_SECONDS = 5;
    /** The longest Retry-After a shedding 503 names, seconds: a client should come back and see. */
    static final int SHED_RETRY_AFTER_MAX_SECONDS = 60;

    private final OverloadConfig config;
    private final BacklogMonitor backlog;
    private final List<String> pools;
    private final Map<String, Integer> levels = new ConcurrentHashMap<>();

    /** @param backlog the pools' backlog; null when shedding is off (no bound set) */
    Shedding(OverloadConfig config, BacklogMonitor backlog, List<String> pools) {
        this.config = config;
        this.backlog = backlog;
        this.pools = List.copyOf(pools);
    }

    /**
     * Reads every pool's backlog once and sets this node's levels; a failed reading keeps the last.
     *
     * @return whether a pool's level changed
     */
    boolean read() {
        if (backlog == null) return false;
        boolean changed = false;
        try {
            backlog.read(pools, Duration.ofSeconds(2));
            for (var e : backlog.seconds().entrySet()) {
                int lvl = config.sheddingLevel(e.getValue());
                Integer old = levels.put(e.getKey(), lvl);
                if (old == null || old != lvl) {
                    log.info("pool {}: backlog {} work-seconds, shedding level {}", e.getKey(), Math.round(e.getValue()), lvl);
                    changed = true;
                }
            }
        } catch (Exception e) {
            log.debug("backlog reading failed (keeping the last): {}", e.toString());
        }
        return changed;
    }

    /**
     * Sheds by the pool's farm-wide level: borrowed traffic from level 1, all but the reserved
     * share from level 2.
     *
     * @param farmLevel the pool's shedding level in the farm view
     * @throws RetryLater {@code shed-borrowed} or {@code shed-reserved}, with its retry-after
     */
    void check(Tenant tenant, String pool, boolean borrowed, int farmLevel) {
        if (farmLevel >= 1 && borrowed) {
            throw RetryLater.overloaded("shed-borrowed", "Pool '" + pool + "' has a backlog over its bound (overload.backlog.soft-seconds): traffic above tenant '"
                    + tenant.id() + "''s guarantee is shed for now.", shedRetryAfter(backlogSeconds(pool), config.softSeconds()));
        }
        if (farmLevel >= 2 && ThreadLocalRandom.current().nextDouble() >= config.reservedShare()) {
            throw RetryLater.overloaded("shed-reserved", "Pool '" + pool + "' has a backlog over its hard bound (overload.backlog.hard-seconds): only a reserved share of requests is admitted.",
                    shedRetryAfter(backlogSeconds(pool), config.hardSeconds()));
        }
    }

    /**
     * Retry-After of a shedding 503: the queue seconds the pool's backlog is over the bound (a queue
     * drains one queue-second per second, when nothing is added), at least 1 and at most
     * {@value #SHED_RETRY_AFTER_MAX_SECONDS}; {@value #SHED_RETRY_AFTER_SECONDS} without a reading
     * (the farm view may shed on another node's).
     *
     * @param backlogSeconds the pool's backlog, queue seconds (NaN: no reading)
     * @param bound          the bound it is over, seconds
     */
    static int shedRetryAfter(double backlogSeconds, double bound) {
        if (Double.isNaN(backlogSeconds)) return SHED_RETRY_AFTER_SECONDS;
        double over = Math.ceil(backlogSeconds - bound);
        return (int) Math.max(1, Math.min(SHED_RETRY_AFTER_MAX_SECONDS, over));
    }

    /** pool → this node's shedding level. */
    Map<String, Integer> levels() {
        return Map.copyOf(levels);
    }

    /** This node's last backlog reading of the pool, queue seconds; NaN without one. */
    double backlogSeconds(String pool) {
        if (backlog == null) return Double.NaN;
        Double s = backlog.seconds().get(pool);
        return s == null ? Double.NaN : s;
    }

    /** pool → backlog, queue seconds, as this node last read it; empty when shedding is off. */
    Map<String, Double> backlogSeconds() {
        return backlog == null ? Map.of() : backlog.seconds();
    }

    /** Closes the backlog reader. */
    void close() {
        if (backlog != null) backlog.close();
    }
}
