package com.fairpix.core.http;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import java.util.Locale;
import java.util.Set;

/**
 * The start-up check of an admin token: a service refuses to start with a token that is short,
 * a known placeholder, or made of too few distinct characters, rather than serve an admin API
 * anyone can guess. An empty token is allowed (the admin API is then off).
 */
public final class AdminTokens {
    /** Placeholders seen in samples and manifests; refused at any length. */
    static final Set<String> KNOWN_WEAK = Set.of("change-me", "changeme", "change_me", "changeit", "admin", "administrator", "password",
            "passw0rd", "secret", "token", "admin-token", "test", "test-admin-token", "fairpix", "default", "letmein", "123456",
            "12345678", "qwerty", "root", "toor", "demo", "example");
    /** Fewest distinct characters a token must have ("aaaa…" of any length is not a secret). */
    static final int MIN_DISTINCT = 8;

    private AdminTokens() {}

    /**
     * @throws IllegalArgumentException naming {@code FAIRPIX_ADMIN_TOKEN} when the configured token is weak
     */
    public static void check(FairpixConfig config) {
        check(config.get(Setting.ADMIN_TOKEN), config.integer(Setting.ADMIN_TOKEN_MIN_LENGTH));
    }

    /**
     * @param minLength shortest token accepted, characters
     * @throws IllegalArgumentException when {@code token} is non-empty and weak
     */
    public static void check(String token, int minLength) {
        if (token == null || token.isEmpty()) return;
        String t = token.trim();
        String why = null;
        if (KNOWN_WEAK.contains(t.toLowerCase(Locale.ROOT))) why = "it is a well-known placeholder";
        else if (t.length() < minLength) why = "it is " + t.length() + " characters; at least " + minLength + " are needed (" + Setting.ADMIN_TOKEN_MIN_LENGTH.env() + ")";
        else if (t.chars().distinct().count() < MIN_DISTINCT) why = "it has fewer than " + MIN_DISTINCT + " distinct characters";
        if (why != null) {
            throw new IllegalArgumentException(Setting.ADMIN_TOKEN.env() + " is too weak to guard the admin API: " + why
                    + ". Use a random value, e.g. $(head -c 32 /dev/urandom | base64), or leave it empty to turn the admin API off.");
        }
    }
}
