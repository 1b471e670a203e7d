package com.fairpix.core.http;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AdminTokensTest {
    @Test
    void weakTokensAreRefusedNamingTheSetting() {
        for (String weak : new String[] {"change-me", "CHANGE-ME", "admin", "short-but-random-x7Q", "a".repeat(40), "abababababababababababababab"}) {
            assertThatThrownBy(() -> AdminTokens.check(weak, 24)).as(weak).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("FAIRPIX_ADMIN_TOKEN");
        }
    }

    @Test
    void randomTokensAndNoTokenAreAccepted() {
        assertThatCode(() -> AdminTokens.check("it-admin-" + java.util.UUID.randomUUID(), 24)).doesNotThrowAnyException();
        assertThatCode(() -> AdminTokens.check("Zk3vQ9pL2mX8rT5wB7nC1dF4", 24)).doesNotThrowAnyException();
        assertThatCode(() -> AdminTokens.check("", 24)).as("empty: admin API off").doesNotThrowAnyException();
    }
}
