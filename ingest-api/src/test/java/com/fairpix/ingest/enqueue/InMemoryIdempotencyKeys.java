package com.fairpix.ingest.enqueue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * {@link IdempotencyKeys} in memory for unit tests, with the Redis store's rules: a claim holds the
 * tenant's key for {@link #TTL} on the given clock, a refused claim changes nothing, and an expired
 * claim is gone (as Redis expires the key).
 */
public final class InMemoryIdempotencyKeys implements IdempotencyKeys {
    private record Claim(String value, Instant expires) {}

    private final Map<String, Claim> claims = new ConcurrentHashMap<>();
    private final Clock clock;

    /** @param clock the time claims expire by (a test's hand-moved clock) */
    public InMemoryIdempotencyKeys(Clock clock) {
        this.clock = clock;
    }

    private static String key(String tenant, String key) {
        return tenant + "/" + key;
    }

    /** The claim under the tenant's key unless it expired (then it is dropped). */
    private Claim live(String k) {
        Claim c = claims.get(k);
        if (c != null && !clock.instant().isBefore(c.expires())) {
            claims.remove(k, c);
            return null;
        }
        return c;
    }

    @Override
    public synchronized boolean claim(String tenant, String key, String value) {
        String k = key(tenant, key);
        if (live(k) != null) return false;
        claims.put(k, new Claim(value, clock.instant().plus(TTL)));
        return true;
    }

    @Override
    public synchronized String get(String tenant, String key) {
        Claim c = live(key(tenant, key));
        return c == null ? null : c.value();
    }

    @Override
    public void delete(String tenant, String key) {
        claims.remove(key(tenant, key));
    }

    /** How long the tenant's claim has left; null when there is none. */
    public synchronized Duration timeToLive(String tenant, String key) {
        Claim c = live(key(tenant, key));
        return c == null ? null : Duration.between(clock.instant(), c.expires());
    }

    /** The claims not expired, {@code tenant/key} → value. */
    public synchronized Map<String, String> claims() {
        return claims.keySet().stream().filter(k -> live(k) != null)
                .collect(Collectors.toMap(k -> k, k -> claims.get(k).value()));
    }
}
