package com.fairpix.webhooks;

import java.security.SecureRandom;
import java.util.Base64;

/**
 * Tenant webhook secrets in the Standard Webhooks form: {@code whsec_} + standard base64 (with
 * padding) of 24–64 random bytes. We generate 32 bytes (256 bits, the HMAC-SHA256 block-size
 * sweet spot). Source: https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
 */
public final class WebhookSecrets {
    public static final String PREFIX = "whsec_";
    private static final SecureRandom RANDOM = new SecureRandom();

    private WebhookSecrets() {}

    /** A new secret of 32 random bytes. */
    public static String generate() {
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        return PREFIX + Base64.getEncoder().encodeToString(key);
    }

    /**
     * The raw key bytes.
     *
     * @throws IllegalArgumentException when the secret is not {@code whsec_} + base64 of 24–64 bytes
     */
    public static byte[] key(String secret) {
        if (secret == null || !secret.startsWith(PREFIX)) throw new IllegalArgumentException("a webhook secret starts with " + PREFIX);
        byte[] key = Base64.getDecoder().decode(secret.substring(PREFIX.length()));
        if (key.length < 24 || key.length > 64) throw new IllegalArgumentException("a webhook secret holds 24-64 bytes, got " + key.length);
        return key;
    }
}
