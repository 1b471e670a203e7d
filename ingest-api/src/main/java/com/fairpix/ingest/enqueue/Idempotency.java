package com.fairpix.ingest.enqueue;

import com.fairpix.core.error.Rejected;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.json.Json;
import java.nio.charset.StandardCharsets;

/**
 * The Idempotency-Key rules of draft-ietf-httpapi-idempotency-key-header: a key names one request;
 * its fingerprint is the SHA-256 of the parsed spec (as we store it, so whitespace and member
 * order do not matter) and the image's SHA-256. Reusing a key with another fingerprint is 422, a
 * duplicate of a request still being accepted is 409, and only the same request replays.
 */
final class Idempotency {
    static final int MAX_KEY_LENGTH = 255;

    private Idempotency() {}

    /**
     * The key as sent: an RFC 8941 sf-string ({@code "..."}) or, as most clients send it, a bare token.
     *
     * @throws Rejected invalid, {@code invalid-idempotency-key}, when empty, over 255 characters or not printable ASCII
     */
    static String key(String header) {
        String k = header.trim();
        if (k.length() >= 2 && k.startsWith("\"") && k.endsWith("\"")) k = k.substring(1, k.length() - 1);
        if (k.isEmpty() || k.length() > MAX_KEY_LENGTH || !k.chars().allMatch(c -> c >= 0x21 && c <= 0x7e)) {
            throw Rejected.invalid("invalid-idempotency-key", "Idempotency-Key must be 1-" + MAX_KEY_LENGTH + " printable ASCII characters.");
        }
        return k;
    }

    static String fingerprint(JobSpec spec, String imageSha256) {
        return JobSubmitter.sha256((Json.write(spec) + "\n" + imageSha256).getBytes(StandardCharsets.UTF_8));
    }

    /** What Redis holds under the key: {@code jobId fingerprint}. */
    static String value(String jobId, String fingerprint) {
        return jobId + " " + fingerprint;
    }

    /** @param fingerprint null for a claim stored before fingerprints (it matches any request, as before) */
    record Claim(String jobId, String fingerprint) {
        static Claim parse(String value) {
            if (value == null || value.isBlank()) return null;
            int sp = value.indexOf(' ');
            return sp < 0 ? new Claim(value, null) : new Claim(value.substring(0, sp), value.substring(sp + 1));
        }

        boolean matches(String other) {
            return fingerprint == null || fingerprint.equals(other);
        }
    }

    static Rejected inFlight() {
        return Rejected.conflict("idempotency-in-flight", "A request with this Idempotency-Key is still being processed; retry shortly.")
                .retryAfter(1);
    }

    static Rejected mismatch() {
        return new Rejected(Rejected.Kind.UNPROCESSABLE, "idempotency-key-reused", "Idempotency-Key reused",
                "This Idempotency-Key was used for a request with another image or spec; use a new key for a new request.");
    }
}
