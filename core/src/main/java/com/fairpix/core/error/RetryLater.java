package com.fairpix.core.error;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A dependency or capacity the work needs is away for now: the same request (or job) may succeed
 * if sent again after {@link #retryAfterSeconds()}. Says what is away ({@link #what()}: a
 * dependency such as {@code redis}, or why the farm sheds, such as {@code ramp}).
 */
public final class RetryLater extends FairpixException {
    /** What is away: the HTTP edge answers both with 503 and a Retry-After, each its own problem. */
    public enum Kind {
        /** A store or queue the work needs is not answering (problem {@code backend-unavailable}). */
        DEPENDENCY,
        /** The farm, or this worker, cannot take the work now: it sheds, recovers or runs short (problem {@code overloaded}). */
        CAPACITY
    }

    private final Kind kind;
    private final int retryAfterSeconds;
    private final Map<String, Object> members = new LinkedHashMap<>();

    /**
     * @param what              the dependency ({@code redis}, {@code s3}, {@code kafka}) or the capacity reason
     * @param detail            what happened, safe to show the caller
     * @param retryAfterSeconds when to try again, seconds; 0 when the caller chooses (the worker's back-off)
     * @param cause             the failure behind it, or null
     */
    public RetryLater(Kind kind, String what, String detail, int retryAfterSeconds, Throwable cause) {
        super(what, detail, cause);
        this.kind = kind;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** {@code dependency} ({@code redis}, {@code s3}, {@code kafka}, {@code upload-storage}) is not answering. */
    public static RetryLater dependency(String dependency, String detail, int retryAfterSeconds) {
        return new RetryLater(Kind.DEPENDENCY, dependency, detail, retryAfterSeconds, null);
    }

    /**
     * The farm is overloaded: a recovery ramp or backlog shedding, never the tenant's own limit
     * (that is {@link Rejected.Kind#LIMITED}).
     *
     * @param reason {@code ramp}, {@code shed-borrowed} or {@code shed-reserved}
     */
    public static RetryLater overloaded(String reason, String detail, int retryAfterSeconds) {
        return new RetryLater(Kind.CAPACITY, reason, detail, retryAfterSeconds, null);
    }

    /** Adds a member to the answer's body, e.g. {@code breaker}. */
    public RetryLater with(String member, Object value) {
        members.put(member, value);
        return this;
    }

    public Kind kind() { return kind; }
    /** The dependency or the capacity reason, as {@link #reason()}. */
    public String what() { return reason(); }
    public String detail() { return getMessage(); }
    /** When to try again, seconds; 0 when the caller chooses. */
    public int retryAfterSeconds() { return retryAfterSeconds; }
    /** Extra members of the answer's body, in the order added. */
    public Map<String, Object> members() { return Collections.unmodifiableMap(members); }
}
