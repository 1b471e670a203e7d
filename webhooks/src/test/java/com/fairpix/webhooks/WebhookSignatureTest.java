package com.fairpix.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.standardwebhooks.Webhook;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Our signatures, checked by the Standard Webhooks reference library (not by our own verifier). */
class WebhookSignatureTest {
    private static Map<String, List<String>> headers(String id, long ts, String sig) {
        return Map.of("webhook-id", List.of(id), "webhook-timestamp", List.of(Long.toString(ts)), "webhook-signature", List.of(sig));
    }

    @Test
    void aGeneratedSecretIsWhsecAndPaddedStandardBase64Of24To64Bytes() {
        for (int i = 0; i < 20; i++) {
            String s = WebhookSecrets.generate();
            assertThat(s).startsWith("whsec_");
            String b64 = s.substring(6);
            assertThat(b64).matches("[A-Za-z0-9+/]+={0,2}").hasSize(44);
            assertThat(Base64.getDecoder().decode(b64).length).isBetween(24, 64);
            assertThat(WebhookSecrets.key(s)).hasSize(32);
        }
        assertThatThrownBy(() -> WebhookSecrets.key("whsec_" + Base64.getEncoder().encodeToString(new byte[16]))).hasMessageContaining("24-64");
    }

    @Test
    void theReferenceVerifierAcceptsOurSignatureOverEscapedUnicodeAndFloats() throws Exception {
        // The exact bytes, never a re-serialisation: \u00e9 stays escaped, 1.0 stays 1.0, our member order.
        String secret = WebhookSecrets.generate();
        String body = "{\"type\":\"job.succeeded\",\"data\":{\"note\":\"caf\\u00e9\",\"ratio\":1.0,\"a\":2}}";
        long ts = Instant.now().getEpochSecond();
        String sig = WebhookSignature.header(List.of(secret), "evt_1", ts, body.getBytes(StandardCharsets.UTF_8));
        assertThatCode(() -> new Webhook(secret).verify(body, headers("evt_1", ts, sig))).doesNotThrowAnyException();
        // A re-serialised body (é unescaped) must not verify: we sign bytes, not meaning.
        assertThatThrownBy(() -> new Webhook(secret).verify(body.replace("\\u00e9", "é"), headers("evt_1", ts, sig)))
                .isInstanceOf(com.standardwebhooks.exceptions.WebhookVerificationException.class);
    }

    @Test
    void nonAsciiTextIsSignedAsUtf8() {
        String secret = WebhookSecrets.generate();
        String body = "{\"label\":\"Zoë ₹ 🚀\"}";
        long ts = Instant.now().getEpochSecond();
        String sig = WebhookSignature.sign(secret, "evt_2", ts, body.getBytes(StandardCharsets.UTF_8));
        assertThatCode(() -> new Webhook(secret).verify(body, headers("evt_2", ts, sig))).doesNotThrowAnyException();
        assertThat(WebhookSignature.verify(secret, "evt_2", Long.toString(ts), sig, body.getBytes(StandardCharsets.UTF_8), ts, 300)).isTrue();
    }

    @Test
    void duringARotationEitherSecretVerifies() {
        String old = WebhookSecrets.generate();
        String fresh = WebhookSecrets.generate();
        String body = "{}";
        long ts = Instant.now().getEpochSecond();
        String header = WebhookSignature.header(List.of(fresh, old), "evt_3", ts, body.getBytes(StandardCharsets.UTF_8));
        assertThat(header.split(" ")).hasSize(2).allMatch(s -> s.startsWith("v1,"));
        assertThatCode(() -> new Webhook(old).verify(body, headers("evt_3", ts, header))).doesNotThrowAnyException();
        assertThatCode(() -> new Webhook(fresh).verify(body, headers("evt_3", ts, header))).doesNotThrowAnyException();
        assertThatThrownBy(() -> new Webhook(WebhookSecrets.generate()).verify(body, headers("evt_3", ts, header)))
                .isInstanceOf(com.standardwebhooks.exceptions.WebhookVerificationException.class);
    }

    @Test
    void ourVerifierRejectsAStaleTimestampAndATamperedBody() {
        String secret = WebhookSecrets.generate();
        byte[] body = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
        String sig = WebhookSignature.sign(secret, "evt_4", 1000, body);
        assertThat(WebhookSignature.verify(secret, "evt_4", "1000", sig, body, 1000 + 301, 300)).isFalse();
        assertThat(WebhookSignature.verify(secret, "evt_4", "1000", sig, "{\"a\":2}".getBytes(StandardCharsets.UTF_8), 1000, 300)).isFalse();
        assertThat(WebhookSignature.verify(secret, "evt_4", "1000", sig, body, 1000, 300)).isTrue();
    }

    @Test
    void theRetryScheduleSpansAboutADayWithJitterOnlyLengthening() {
        RetrySchedule s = RetrySchedule.parse("5s,5m,30m,2h,5h,10h,10h");
        assertThat(s.maxAttempts()).isEqualTo(8);
        assertThat(s.delays().stream().mapToLong(Duration::toSeconds).sum()).isBetween(20L * 3600, 30L * 3600);
        var random = new SplittableRandom(1);
        Duration first = s.after(1, null, random);
        assertThat(first).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(6));
        assertThat(s.after(1, Duration.ofMinutes(2), random)).isEqualTo(Duration.ofMinutes(2));
        assertThat(s.after(1, Duration.ofDays(3), random)).isEqualTo(RetrySchedule.MAX_RETRY_AFTER);
        assertThat(s.after(8, null, random)).isNull();
        assertThatThrownBy(() -> RetrySchedule.parse("5x")).hasMessageContaining("unit");
    }
}
