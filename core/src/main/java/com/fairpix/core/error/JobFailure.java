package com.fairpix.core.error;

/**
 * Why processing a job stopped, and what the worker does next: a {@link Permanent} failure ends the
 * job as FAILED (and dead-letters it); a {@link Transient} one is retried with backoff.
 */
public abstract sealed class JobFailure extends RuntimeException {
    private final String reason;

    protected JobFailure(String reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** A short machine-readable reason, e.g. {@code undecodable}, {@code truncated}, {@code too-many-pixels}. */
    public String reason() {
        return reason;
    }

    /** The input itself is at fault; retrying cannot help. */
    public static final class Permanent extends JobFailure {
        public Permanent(String reason, String message) {
            super(reason, message, null);
        }

        public Permanent(String reason, String message, Throwable cause) {
            super(reason, message, cause);
        }
    }

    /** A dependency failed (S3, Redis, Kafka); the same job may succeed later. */
    public static final class Transient extends JobFailure {
        public Transient(String reason, String message, Throwable cause) {
            super(reason, message, cause);
        }
    }
}
