package com.fairpix.webhooks;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Standard Webhooks signatures: {@code v1,} + base64(HMAC-SHA256(key, id + "." + timestamp + "." +
 * body)), computed over the exact body bytes sent (never a re-serialisation), timestamp in epoch
 * seconds. During a secret rotation the header carries one signature per secret, space-separated.
 * Source: https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
 */
public final class WebhookSignature {
    public static final String ID = "webhook-id";
    public static final String TIMESTAMP = "webhook-timestamp";
    public static final String SIGNATURE = "webhook-signature";

    private WebhookSignature() {}

    /** One {@code v1,<base64>} signature. */
    public static String sign(String secret, String id, long timestampSeconds, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(WebhookSecrets.key(secret), "HmacSHA256"));
            mac.update((id + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8));
            return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /** The {@code webhook-signature} header value: a signature per secret, space-separated. */
    public static String header(List<String> secrets, String id, long timestampSeconds, byte[] body) {
        List<String> sigs = new ArrayList<>();
        for (String s : secrets) sigs.add(sign(s, id, timestampSeconds, body));
        return String.join(" ", sigs);
    }

    /**
     * Whether any {@code v1} signature in {@code header} matches {@code secret} (constant-time
     * compare) and the timestamp lies within {@code toleranceSeconds} of {@code nowSeconds}.
     */
    public static boolean verify(String secret, String id, String timestamp, String header, byte[] body, long nowSeconds, long toleranceSeconds) {
        if (id == null || timestamp == null || header == null) return false;
        long ts;
        try {
            ts = Long.parseLong(timestamp.trim());
        } catch (NumberFormatException e) {
            return false;
        }
        if (Math.abs(nowSeconds - ts) > toleranceSeconds) return false;
        byte[] expected = sign(secret, id, ts, body).getBytes(StandardCharsets.US_ASCII);
        for (String sig : header.trim().split(" +")) {
            if (sig.startsWith("v1,") && MessageDigest.isEqual(expected, sig.getBytes(StandardCharsets.US_ASCII))) return true;
        }
        return false;
    }
}
