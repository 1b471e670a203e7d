package com.fairpix.ingest.enqueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link IdempotencyKeys} does, run on each implementation
 * ({@code InMemoryIdempotencyKeysTest} on the fake, {@code RedisIdempotencyKeysIT} on Redis). Each
 * test's tenants are its own, so a shared Redis holds other runs' claims without disturbing it.
 */
public abstract class IdempotencyKeysContract {
    /** The store under test. */
    protected abstract IdempotencyKeys keys();

    /** How long the tenant's claim under {@code key} has left, as the store keeps it; null when none. */
    protected abstract Duration timeToLive(String tenant, String key);

    private final String a = "ikc-a-" + UUID.randomUUID();
    private final String b = "ikc-b-" + UUID.randomUUID();

    @AfterEach
    void deleteWhatThisTestClaimed() {
        for (String tenant : new String[] {a, b}) keys().delete(tenant, "order-1");
    }

    @Test
    void theFirstClaimHoldsTheKeyAndLaterOnesAreRefusedWithItsValueKept() {
        assertThat(keys().claim(a, "order-1", "job1 fp1")).isTrue();
        assertThat(keys().claim(a, "order-1", "job2 fp2")).as("a concurrent or later duplicate").isFalse();
        assertThat(keys().get(a, "order-1")).isEqualTo("job1 fp1");
    }

    @Test
    void aKeyIsItsTenantsOwn() {
        assertThat(keys().claim(a, "order-1", "job1 fp1")).isTrue();
        assertThat(keys().claim(b, "order-1", "job2 fp2")).as("another tenant, the same key").isTrue();
        assertThat(keys().get(a, "order-1")).isEqualTo("job1 fp1");
        assertThat(keys().get(b, "order-1")).isEqualTo("job2 fp2");
        keys().delete(b, "order-1");
        assertThat(keys().get(a, "order-1")).as("a delete is the tenant's own too").isEqualTo("job1 fp1");
    }

    @Test
    void anUnclaimedKeyHoldsNothing() {
        assertThat(keys().get(a, "never")).isNull();
        assertThat(timeToLive(a, "never")).isNull();
        keys().delete(a, "never");
        assertThat(keys().get(a, "never")).as("deleting nothing is no error").isNull();
    }

    @Test
    void aDeletedKeyCanBeClaimedAgain() {
        keys().claim(a, "order-1", "job1 fp1");
        keys().delete(a, "order-1");
        assertThat(keys().get(a, "order-1")).isNull();
        assertThat(keys().claim(a, "order-1", "job2 fp2")).as("a failed request gives its key back").isTrue();
        assertThat(keys().get(a, "order-1")).isEqualTo("job2 fp2");
    }

    @Test
    void aClaimIsKeptForItsTimeToLive() {
        keys().claim(a, "order-1", "job1 fp1");
        // Redis counts whole seconds, and a loaded machine may take some between the claim and the read.
        assertThat(timeToLive(a, "order-1")).isBetween(IdempotencyKeys.TTL.minusSeconds(30), IdempotencyKeys.TTL);
        keys().claim(a, "order-1", "job2 fp2");
        assertThat(timeToLive(a, "order-1")).as("a refused claim does not extend it")
                .isBetween(IdempotencyKeys.TTL.minusSeconds(30), IdempotencyKeys.TTL);
    }
}
