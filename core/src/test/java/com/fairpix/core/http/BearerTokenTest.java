package com.fairpix.core.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BearerTokenTest {
    @Test
    void theTokenIsReadFromABearerHeaderOfAnyCase() {
        assertThat(BearerToken.of("Bearer fpk_abc")).contains("fpk_abc");
        assertThat(BearerToken.of("bearer  fpk_abc ")).as("scheme case-insensitive, spaces trimmed").contains("fpk_abc");
        assertThat(BearerToken.of("Basic dXNlcjpwYXNz")).isEmpty();
        assertThat(BearerToken.of("Bearer ")).isEmpty();
        assertThat(BearerToken.of("Bearerfpk_abc")).isEmpty();
        assertThat(BearerToken.of(null)).isEmpty();
    }

    @Test
    void onlyTheExactSecretMatchesAndAnEmptySecretMatchesNothing() {
        assertThat(BearerToken.matches("Bearer s3cret", "s3cret")).isTrue();
        assertThat(BearerToken.matches("Bearer s3cre", "s3cret")).isFalse();
        assertThat(BearerToken.matches("Bearer s3cretX", "s3cret")).isFalse();
        assertThat(BearerToken.matches(null, "s3cret")).isFalse();
        assertThat(BearerToken.matches("Bearer ", "")).as("no secret set: nothing passes").isFalse();
        assertThat(BearerToken.matches("Bearer x", null)).isFalse();
    }
}
