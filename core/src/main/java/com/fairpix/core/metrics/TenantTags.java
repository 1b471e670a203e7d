package com.fairpix.core.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * Bounds the {@code tenant} label of per-tenant metrics: only the {@code limit} most active tenants
 * (by events in the last window) get their own label value, every other tenant is {@code other}.
 * With 10,000 tenants a metric still has at most {@code limit + 1} tenant series; the meters of a
 * tenant that drops out of the top are removed from the registry. Re-ranked every minute.
 */
public final class TenantTags {
    public static final String OTHER = "other";

    private final MeterRegistry registry;
    private final int limit;
    private final Map<String, LongAdder> activity = new ConcurrentHashMap<>();
    private volatile Set<String> top = ConcurrentHashMap.newKeySet();
    private final LongSupplier nanos;
    private volatile long lastRerank;
    private static final long WINDOW_NANOS = 60_000_000_000L;

    /**
     * @param limit tenants with a label of their own (0 puts everyone under {@code other})
     * @param nanos monotonic clock, nanoseconds, that times the re-ranking window
     */
    public TenantTags(MeterRegistry registry, int limit, LongSupplier nanos) {
        this.registry = registry;
        this.limit = limit;
        this.nanos = nanos;
        this.lastRerank = nanos.getAsLong();
    }

    /** The label value for {@code tenant}, counting one event of activity. */
    public String tag(String tenant) {
        if (nanos.getAsLong() - lastRerank > WINDOW_NANOS) rerank();
        activity.computeIfAbsent(tenant, t -> new LongAdder()).increment();
        Set<String> current = top;
        if (current.contains(tenant)) return tenant;
        // Until the top is full, tenants join as they appear (no window has passed yet).
        synchronized (this) {
            if (top.size() < limit) {
                top.add(tenant);
                return tenant;
            }
        }
        return OTHER;
    }

    /** The label value for {@code tenant} without counting activity (for gauges read on a timer). */
    public String peek(String tenant) {
        return top.contains(tenant) ? tenant : OTHER;
    }

    /** Re-ranks tenants by the activity since the last call and drops the meters of those that left the top. */
    public synchronized void rerank() {
        lastRerank = nanos.getAsLong();
        Set<String> next = activity.entrySet().stream()
                .sorted(Comparator.comparingLong((Map.Entry<String, LongAdder> e) -> e.getValue().sum()).reversed())
                .limit(limit)
                .map(Map.Entry::getKey)
                .collect(Collectors.toCollection(ConcurrentHashMap::newKeySet));
        activity.clear();
        Set<String> dropped = top.stream().filter(t -> !next.contains(t)).collect(Collectors.toSet());
        top = next;
        if (dropped.isEmpty()) return;
        for (Meter m : registry.getMeters()) {
            String t = m.getId().getTag("tenant");
            if (t != null && dropped.contains(t)) registry.remove(m);
        }
    }
}
