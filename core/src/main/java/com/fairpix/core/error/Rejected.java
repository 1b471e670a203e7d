package com.fairpix.core.error;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The caller's request is refused: sent again unchanged it is refused again, except a limit's
 * refusal ({@link Kind#LIMITED}), which passes after its retry-after. Says which problem (an id such
 * as {@code invalid-spec}), a title and a detail safe to show the caller, and optional members
 * (e.g. {@code errors}, {@code limit}) for the answer's body.
 */
public final class Rejected extends FairpixException {
    /** What kind of refusal: the HTTP edge answers each with its own status. */
    public enum Kind {
        /** The request is malformed or asks for something invalid (400). */
        INVALID,
        /** The caller's credentials are missing or unknown (401). */
        UNAUTHENTICATED,
        /** The caller is known and may not do this (403). */
        FORBIDDEN,
        /** What the request names does not exist for this caller (404). */
        NOT_FOUND,
        /** The resource's state does not allow it now (409). */
        CONFLICT,
        /** The request, or the job it asks for, is over a size limit (413). */
        TOO_LARGE,
        /** The upload is of a type the service does not take (415). */
        UNSUPPORTED,
        /** Well-formed, but its content cannot be processed as sent (422). */
        UNPROCESSABLE,
        /** Over the tenant's rate, quota or concurrency limit (429). */
        LIMITED
    }

    private final Kind kind;
    private final String title;
    private final Map<String, Object> members = new LinkedHashMap<>();
    private final Map<String, String> fields = new LinkedHashMap<>();
    private long retryAfterSeconds = -1;
    private boolean stopsReading;

    /**
     * @param problem the problem's id, e.g. {@code invalid-spec}: the last segment of its type URI
     * @param title   a short summary of the problem, the same for every refusal with this id
     * @param detail  what is wrong with this request and what to change, safe to show the caller
     */
    public Rejected(Kind kind, String problem, String title, String detail) {
        super(problem, detail, null);
        this.kind = kind;
        this.title = title;
    }

    public static Rejected invalid(String problem, String detail) {
        return new Rejected(Kind.INVALID, problem, "Bad request", detail);
    }

    /** The caller sent no API key, or one that is not valid. */
    public static Rejected unauthenticated(String detail) {
        return new Rejected(Kind.UNAUTHENTICATED, "unauthorized", "Missing or invalid API key", detail);
    }

    public static Rejected forbidden(String problem, String detail) {
        return new Rejected(Kind.FORBIDDEN, problem, "Forbidden", detail);
    }

    public static Rejected notFound(String detail) {
        return new Rejected(Kind.NOT_FOUND, "not-found", "Not found", detail);
    }

    public static Rejected conflict(String problem, String detail) {
        return new Rejected(Kind.CONFLICT, problem, "Conflict", detail);
    }

    /** The uploaded image is over the tenant's size limit. */
    public static Rejected uploadTooLarge(String detail) {
        return new Rejected(Kind.TOO_LARGE, "payload-too-large", "Upload too large", detail);
    }

    /** The upload is not an image type the tenant may send. */
    public static Rejected unsupportedImage(String detail) {
        return new Rejected(Kind.UNSUPPORTED, "unsupported-media-type", "Unsupported image type", detail);
    }

    /** The image cannot be processed as sent (its header, its size, what the job would make of it). */
    public static Rejected unprocessableImage(String problem, String detail) {
        return new Rejected(Kind.UNPROCESSABLE, problem, "Unprocessable image", detail);
    }

    /** Adds a member to the answer's body, e.g. {@code errors} (a list of strings) or {@code limit}. */
    public Rejected with(String member, Object value) {
        members.put(member, value);
        return this;
    }

    /** The same request may pass after {@code seconds} (a limit's refusal, a key still in use). */
    public Rejected retryAfter(long seconds) {
        retryAfterSeconds = seconds;
        return this;
    }

    /**
     * Adds a field describing the limit that refused the request, sent with the answer as a header
     * field of that name (the RateLimit and RateLimit-Policy fields of
     * draft-ietf-httpapi-ratelimit-headers).
     */
    public Rejected field(String name, String value) {
        fields.put(name, value);
        return this;
    }

    /** The rest of the request is not wanted: the edge answers without reading it (and closes the connection). */
    public Rejected stopReading() {
        stopsReading = true;
        return this;
    }

    public Kind kind() { return kind; }
    /** The problem's id, as {@link #reason()}. */
    public String problem() { return reason(); }
    public String title() { return title; }
    public String detail() { return getMessage(); }
    /** Extra members of the answer's body, in the order added. */
    public Map<String, Object> members() { return Collections.unmodifiableMap(members); }
    /** Fields describing the limit, name → value, in the order added. */
    public Map<String, String> fields() { return Collections.unmodifiableMap(fields); }
    /** Seconds after which the same request may pass; empty when it never will unchanged. */
    public OptionalLong retryAfterSeconds() { return retryAfterSeconds < 0 ? OptionalLong.empty() : OptionalLong.of(retryAfterSeconds); }
    public boolean stopsReading() { return stopsReading; }
}
