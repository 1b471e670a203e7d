package com.fairpix.core.http;

import com.fairpix.core.error.Rejected;
import com.fairpix.core.error.RetryLater;

/**
 * The one mapping from core's error family to RFC 9457 problem documents: status, problem type,
 * title, detail, members and headers ({@code Retry-After}, {@code WWW-Authenticate}, the RateLimit
 * fields, {@code Connection: close}). {@link ServiceHttp} answers every Rejected and RetryLater a
 * handler throws with it; a {@link com.fairpix.core.error.Permanent} is no answer to a request and
 * falls through to the 500.
 */
public final class Problems {
    private Problems() {}

    /**
     * The problem document a request is answered with for {@code e}.
     *
     * @param e an {@link ApiProblem} (returned as it is), a {@link Rejected} or a {@link RetryLater}
     * @throws IllegalArgumentException for any other exception
     */
    public static ApiProblem of(RuntimeException e) {
        return switch (e) {
            case ApiProblem p -> p;
            case Rejected r -> rejected(r);
            case RetryLater r -> retryLater(r);
            default -> throw new IllegalArgumentException("no problem document for " + e, e);
        };
    }

    private static ApiProblem rejected(Rejected r) {
        ApiProblem p = new ApiProblem(status(r.kind()), r.problem(), r.title(), r.detail());
        r.members().forEach(p::with);
        r.retryAfterSeconds().ifPresent(s -> p.header("Retry-After", Long.toString(s)));
        // A 401 says how to authenticate (RFC 9110 §11.6.1).
        if (r.kind() == Rejected.Kind.UNAUTHENTICATED) p.header("WWW-Authenticate", "Bearer realm=\"fairpix\"");
        r.fields().forEach(p::header);
        if (r.stopsReading()) p.header("Connection", "close");
        return p;
    }

    private static int status(Rejected.Kind kind) {
        return switch (kind) {
            case INVALID -> 400;
            case UNAUTHENTICATED -> 401;
            case FORBIDDEN -> 403;
            case NOT_FOUND -> 404;
            case CONFLICT -> 409;
            case TOO_LARGE -> 413;
            case UNSUPPORTED -> 415;
            case UNPROCESSABLE -> 422;
            case LIMITED -> 429;
        };
    }

    private static ApiProblem retryLater(RetryLater r) {
        ApiProblem p = switch (r.kind()) {
            case DEPENDENCY -> ApiProblem.unavailable(r.what(), r.detail(), r.retryAfterSeconds());
            case CAPACITY -> ApiProblem.overloaded(r.what(), r.detail(), r.retryAfterSeconds());
        };
        r.members().forEach(p::with);
        return p;
    }
}
