package com.fairpix.core.resilience;

/** A backend a fairpix service calls, each behind its own circuit breaker. */
public enum Dependency {
    KAFKA("kafka"), S3("s3"), REDIS("redis");

    private final String id;

    Dependency(String id) { this.id = id; }

    /** The breaker's name, the {@code name} tag of its metrics and the key in status documents. */
    public String id() { return id; }

    public static Dependency byId(String id) {
        for (Dependency d : values()) if (d.id.equals(id)) return d;
        throw new IllegalArgumentException("unknown dependency " + id);
    }
}
