package com.fairpix.core.error;

/**
 * An error that says what its caller does next: {@link Rejected}, change the request (or wait, for
 * a limit); {@link RetryLater}, send the same again later; {@link Permanent}, give up on the job.
 * Service code throws these; the HTTP edge maps them to problem+json in one place
 * ({@code com.fairpix.core.http.Problems}), the worker to a retry or a FAILED job and a dead letter.
 */
public abstract sealed class FairpixException extends RuntimeException permits Rejected, RetryLater, Permanent {
    private final String reason;

    FairpixException(String reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /**
     * A short machine-readable reason: the problem a request was refused for ({@code rate-limited}),
     * what is away ({@code redis}), why a job failed ({@code undecodable}).
     */
    public String reason() {
        return reason;
    }
}
