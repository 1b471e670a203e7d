package com.fairpix.core.log;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogSafeTest {
    @Test
    void lineBreaksAndEscapeSequencesCannotReachTheLog() {
        String key = "tenants/a/x.png\r\n2026-01-01 INFO forged line \u001b[31mred\u001b[0m\u0085";
        String safe = LogSafe.of(key);
        assertThat(safe).doesNotContain("\r", "\n", "\u001b", "\u0085");
        assertThat(safe).isEqualTo("tenants/a/x.png\\r\\n2026-01-01 INFO forged line \\u001b[31mred\\u001b[0m\\u0085");
    }

    @Test
    void plainTextIsUnchangedAndLongTextIsCut() {
        assertThat(LogSafe.of("tenants/acme/logo é✓.png")).isEqualTo("tenants/acme/logo é✓.png");
        assertThat(LogSafe.of(null)).isEqualTo("null");
        assertThat(LogSafe.of("x".repeat(5000))).hasSize(LogSafe.MAX_CHARS + "…(5000 chars)".length());
    }
}
