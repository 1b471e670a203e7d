package com.fairpix.core.tenant;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * A node's negative cache of API keys (by hash) that Redis did not know: bounded in entries (the
 * oldest goes first) and in time (each entry lives {@code ttlNanos}), so a client repeating an
 * unknown key costs one Redis read per key and TTL rather than one per request, and a flood of
 * random keys costs at most {@code max} entries.
 */
final class UnknownKeys {
    private final int max;
    private final long ttlNanos;
    private final LongSupplier nanos;
    /** Key hash → when its entry ends (nanos); insertion order, so the eldest is also the first to expire. */
    private final LinkedHashMap<String, Long> entries;

    UnknownKeys(int max, long ttlNanos, LongSupplier nanos) {
        if (max < 1) throw new IllegalArgumentException("max must be >= 1");
        this.max = max;
        this.ttlNanos = ttlNanos;
        this.nanos = nanos;
        this.entries = new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
                return size() > UnknownKeys.this.max;
            }
        };
    }

    /** True while {@code hash} is known to be unknown. */
    synchronized boolean contains(String hash) {
        Long until = entries.get(hash);
        if (until == null) return false;
        if (nanos.getAsLong() - until >= 0) {
            entries.remove(hash);
            return false;
        }
        return true;
    }

    synchronized void add(String hash) {
        entries.remove(hash);
        entries.put(hash, nanos.getAsLong() + ttlNanos);
    }

    /** The key was created or changed: ask Redis again. */
    synchronized void remove(String hash) {
        entries.remove(hash);
    }

    synchronized void clear() {
        entries.clear();
    }

    synchronized int size() {
        return entries.size();
    }
}
