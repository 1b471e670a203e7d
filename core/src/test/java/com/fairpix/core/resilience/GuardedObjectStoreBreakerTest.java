package com.fairpix.core.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.storage.InMemoryObjectStore;
import com.fairpix.core.storage.ObjectStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * No tenant trips the farm-wide S3 breaker with its own objects: slowness is judged per byte, and
 * an object over the read limit is the tenant's error, not S3's. Time is a hand-moved clock: each
 * call of the store below "takes" {@code callNanos}.
 */
class GuardedObjectStoreBreakerTest {
    private static final long MIB = 1L << 20;
    // slow past 1 s + n / 8 MiB/s; window 10, opens at 80 % slow or 50 % failed
    private final CircuitBreaker s3 = Breakers.of(ClientErrorsTest.SETTINGS).get(Dependency.S3);
    private final AtomicLong now = new AtomicLong();
    private volatile long callNanos;
    private final InMemoryObjectStore memory = new InMemoryObjectStore();
    private final ObjectStore timed = new ObjectStore() {
        @Override public void put(String key, byte[] data, String type) { now.addAndGet(callNanos); memory.put(key, data, type); }
        @Override public byte[] get(String key, long max) { now.addAndGet(callNanos); return memory.get(key, max); }
        @Override public InputStream open(String key) { now.addAndGet(callNanos); return memory.open(key); }
        @Override public void ensureBucket() {}
        @Override public boolean ping() { return true; }
        @Override public void close() {}
    };
    private final GuardedObjectStore store = new GuardedObjectStore(timed, s3, 8 * MIB, now::get);

    @Test
    void bigObjectsSlowOnlyBecauseTheyAreBigLeaveTheBreakerClosed() {
        callNanos = Duration.ofMillis(1900).toNanos(); // 8 MiB at 4.2 MiB/s: allowed 1 s + 1 s
        byte[] big = new byte[(int) (8 * MIB)];
        for (int i = 0; i < 20; i++) store.put("tenants/a/originals/big", big, "image/png");
        for (int i = 0; i < 20; i++) store.get("tenants/a/originals/big", 50 * MIB);
        assertThat(s3.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(s3.getMetrics().getNumberOfSlowCalls()).isZero();
    }

    @Test
    void smallCallsAsSlowStillOpenIt() {
        callNanos = Duration.ofSeconds(4).toNanos();
        for (int i = 0; i < 5; i++) store.put("tenants/b/originals/" + i, new byte[1024], "image/png"); // the minimum calls
        assertThat(s3.getState()).as("4 s for 1 KiB is an S3 in trouble").isEqualTo(CircuitBreaker.State.OPEN);
    }

    @Test
    void aBigObjectSlowerThanItsAllowanceIsSlow() {
        callNanos = Duration.ofMillis(2100).toNanos(); // 8 MiB: allowed 2 s
        store.put("tenants/a/x", new byte[(int) (8 * MIB)], "image/png");
        assertThat(s3.getMetrics().getNumberOfSlowSuccessfulCalls()).isEqualTo(1);
        assertThat(store.judged(Duration.ofSeconds(4).toNanos(), 24 * MIB)).isEqualTo(Duration.ofSeconds(1).toNanos());
    }

    @Test
    void readsOverTheLimitAndMissingObjectsCountNeitherWay() {
        callNanos = Duration.ofMillis(5).toNanos();
        store.put("tenants/a/huge", new byte[1000], "image/png");
        for (int i = 0; i < 20; i++) {
            assertThatThrownBy(() -> store.get("tenants/a/huge", 999)).isInstanceOf(ObjectStore.ObjectTooLargeException.class);
            assertThatThrownBy(() -> store.get("tenants/a/none", 999)).isInstanceOf(ObjectStore.ObjectNotFoundException.class);
        }
        assertThat(s3.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(s3.getMetrics().getNumberOfFailedCalls()).isZero();
        assertThat(s3.getMetrics().getNumberOfBufferedCalls()).as("only the put").isEqualTo(1);
    }

    @Test
    void realFailuresStillOpenIt() {
        memory.failPuts(new java.io.UncheckedIOException(new java.io.IOException("connection reset")));
        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> store.put("tenants/a/y", new byte[10], "image/png")).isInstanceOf(java.io.UncheckedIOException.class);
        }
        assertThat(s3.getState()).isEqualTo(CircuitBreaker.State.OPEN);
    }
}
