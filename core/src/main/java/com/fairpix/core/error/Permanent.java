package com.fairpix.core.error;

/**
 * A job (or its input) that can never succeed, however often it is tried: the worker ends it
 * FAILED with {@link #reason()} and dead-letters it.
 */
public final class Permanent extends FairpixException {
    /**
     * @param reason  why, machine-readable: {@code undecodable}, {@code truncated}, {@code too-many-pixels}, ...
     * @param message what happened, for the job's record and the dead letter
     */
    public Permanent(String reason, String message) {
        super(reason, message, null);
    }
}
