package com.fairpix.core.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * The one reading of {@code Authorization: Bearer <token>} (RFC 6750 §2.1: the scheme is
 * case-insensitive, RFC 9110 §11.1) and the one comparison of a presented token with a secret, in
 * constant time so that the secret does not leak through response timing. What a refusal looks like
 * (its problem type and realm) stays with the caller.
 */
public final class BearerToken {
    private static final String SCHEME = "Bearer ";

    private BearerToken() {}

    /** The token of an {@code Authorization} header value; empty when the header is absent, of another scheme, or blank. */
    public static Optional<String> of(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) return Optional.empty();
        String token = authorization.substring(SCHEME.length()).trim();
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }

    /**
     * Whether the header carries exactly {@code secret}, compared in constant time.
     *
     * @param secret the expected token; an empty secret matches nothing
     */
    public static boolean matches(String authorization, String secret) {
        if (secret == null || secret.isEmpty()) return false;
        String token = of(authorization).orElse("");
        return MessageDigest.isEqual(token.getBytes(StandardCharsets.UTF_8), secret.getBytes(StandardCharsets.UTF_8));
    }
}
