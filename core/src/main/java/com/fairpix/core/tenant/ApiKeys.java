package com.fairpix.core.tenant;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.zip.CRC32;

/**
 * Tenant API keys: {@code fpk_} + 33 random base62 characters (196 bits) + 6 base62 characters of
 * CRC32 over the random part, so a secret scanner can recognise a key and reject typos offline
 * (the shape GitHub uses for its tokens). Only the SHA-256 of a key is ever stored.
 */
public final class ApiKeys {
    public static final String PREFIX = "fpk_";
    private static final String BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    private static final int RANDOM_CHARS = 33;
    private static final int CHECKSUM_CHARS = 6;
    private static final SecureRandom RANDOM = new SecureRandom();

    private ApiKeys() {}

    public static String generate() {
        StringBuilder body = new StringBuilder(RANDOM_CHARS);
        for (int i = 0; i < RANDOM_CHARS; i++) body.append(BASE62.charAt(RANDOM.nextInt(62)));
        return PREFIX + body + checksum(body.toString());
    }

    /** True when {@code key} has the fpk_ shape and its checksum matches (says nothing of validity). */
    public static boolean looksValid(String key) {
        if (key == null || key.length() != PREFIX.length() + RANDOM_CHARS + CHECKSUM_CHARS || !key.startsWith(PREFIX)) return false;
        String body = key.substring(PREFIX.length(), PREFIX.length() + RANDOM_CHARS);
        for (int i = 0; i < body.length(); i++) if (BASE62.indexOf(body.charAt(i)) < 0) return false;
        return key.endsWith(checksum(body));
    }

    /** Lower-case hex SHA-256 of the key: what Redis stores. */
    public static String hash(String key) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A key's public id, derived from its hash: safe to list, log and use to revoke the key. */
    public static String keyId(String hash) {
        return "key_" + hash.substring(0, 16);
    }

    private static String checksum(String body) {
        CRC32 crc = new CRC32();
        crc.update(body.getBytes(StandardCharsets.US_ASCII));
        long v = crc.getValue();
        char[] out = new char[CHECKSUM_CHARS];
        for (int i = CHECKSUM_CHARS - 1; i >= 0; i--) {
            out[i] = BASE62.charAt((int) (v % 62));
            v /= 62;
        }
        return new String(out);
    }
}
