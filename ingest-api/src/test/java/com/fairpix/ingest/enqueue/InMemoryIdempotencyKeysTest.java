package com.fairpix.ingest.enqueue;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The idempotency key contract on the in-memory store, and its expiry on a hand-moved clock (Redis expires keys by itself). */
class InMemoryIdempotencyKeysTest extends IdempotencyKeysContract {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T12:00:00Z"));
    private final InMemoryIdempotencyKeys keys = new InMemoryIdempotencyKeys(clock);

    @Override
    protected IdempotencyKeys keys() {
        return keys;
    }

    @Override
    protected Duration timeToLive(String tenant, String key) {
        return keys.timeToLive(tenant, key);
    }

    @Test
    void aClaimExpiresAfterItsTimeToLiveAndTheKeyCanBeClaimedAgain() {
        keys.claim("acme", "order-1", "job1 fp1");
        clock.advance(IdempotencyKeys.TTL.minusSeconds(1));
        assertThat(keys.get("acme", "order-1")).isEqualTo("job1 fp1");
        clock.advance(Duration.ofSeconds(1));
        assertThat(keys.get("acme", "order-1")).isNull();
        assertThat(keys.claim("acme", "order-1", "job2 fp2")).isTrue();
    }
}
