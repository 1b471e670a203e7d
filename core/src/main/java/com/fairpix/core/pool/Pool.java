package com.fairpix.core.pool;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A worker pool: a Kafka topic ({@code fairpix.jobs.<pool>}), its consumer group and the workers
 * in it. On the wire (JSON, topic names, settings, the HTTP API) a pool is its lower-case
 * {@link #wire() name}: {@code cpu} or {@code gpu}.
 */
public enum Pool {
    CPU, GPU;

    /** Every pool's wire name, in declaration order: {@code [cpu, gpu]}. */
    public static final List<String> NAMES = Arrays.stream(values()).map(Pool::wire).toList();

    /** What a refused pool name is told: {@code pool must be cpu or gpu}. */
    public static final String MUST_BE = "pool must be " + String.join(" or ", NAMES);

    /** The lower-case name used on the wire, e.g. {@code cpu}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The pool named {@code wire} (exact, lower-case); empty for any other string or null. */
    public static Optional<Pool> find(String wire) {
        for (Pool p : values()) {
            if (p.wire().equals(wire)) return Optional.of(p);
        }
        return Optional.empty();
    }

    /** @throws IllegalArgumentException listing the valid names when {@code wire} names no pool */
    public static Pool parse(String wire) {
        return find(wire).orElseThrow(() -> new IllegalArgumentException(MUST_BE + ", got " + wire));
    }
}
