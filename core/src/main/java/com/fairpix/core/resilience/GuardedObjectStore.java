package com.fairpix.core.resilience;

import com.fairpix.core.storage.ObjectStore;
import com.fairpix.core.time.SystemTime;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * An {@link ObjectStore} whose data calls go through the S3 circuit breaker: while it is open they
 * fail at once with {@link io.github.resilience4j.circuitbreaker.CallNotPermittedException}
 * instead of waiting on a dead endpoint. {@code ensureBucket}, {@code ping} and {@code close}
 * bypass it (start-up and health checks must see the real answer).
 *
 * <p>Slowness is judged per byte: a call that moved {@code n} bytes counts as slow only past the
 * breaker's slow-call duration plus {@code n / bytesPerSecond}, so one tenant's big originals or
 * assets, slow because they are big, cannot open the farm-wide breaker. The breaker is told a
 * duration scaled to that allowance ({@code elapsed × slow / (slow + n / bytesPerSecond)}), which
 * passes its threshold exactly when the call passed its own. Errors a {@link ClientErrors} rule
 * calls the caller's own (a missing or too-large object, an S3 4xx for its key) count neither way.
 */
public final class GuardedObjectStore implements ObjectStore {
    private final ObjectStore delegate;
    private final CircuitBreaker breaker;
    private final long bytesPerSecond;
    private final LongSupplier nanos;
    private final long slowNanos;

    public GuardedObjectStore(ObjectStore delegate, CircuitBreaker breaker) {
        this(delegate, breaker, BreakerSettings.DEFAULT_BYTES_PER_SECOND, SystemTime.nanos());
    }

    /**
     * @param bytesPerSecond the throughput a call is allowed before its bytes make it slow
     * @param nanos          the monotonic clock calls are timed by
     */
    public GuardedObjectStore(ObjectStore delegate, CircuitBreaker breaker, long bytesPerSecond, LongSupplier nanos) {
        if (bytesPerSecond < 1) throw new IllegalArgumentException("bytesPerSecond must be at least 1");
        this.delegate = delegate;
        this.breaker = breaker;
        this.bytesPerSecond = bytesPerSecond;
        this.nanos = nanos;
        this.slowNanos = Math.max(1, breaker.getCircuitBreakerConfig().getSlowCallDurationThreshold().toNanos());
    }

    @Override
    public void put(String key, byte[] data, String contentType) {
        call(data.length, () -> { delegate.put(key, data, contentType); return null; }, r -> data.length);
    }

    @Override
    public void put(String key, java.nio.file.Path file, long size, String contentType) {
        call(size, () -> { delegate.put(key, file, size, contentType); return null; }, r -> size);
    }

    @Override
    public byte[] get(String key, long maxBytes) {
        return call(maxBytes, () -> delegate.get(key, maxBytes), r -> r.length);
    }

    @Override
    public InputStream open(String key) {
        return call(0, () -> delegate.open(key), r -> 0);
    }

    @Override
    public void ensureBucket() { delegate.ensureBucket(); }

    @Override
    public boolean ping() { return delegate.ping(); }

    @Override
    public void close() { delegate.close(); }

    /**
     * The breaker's duration for a call of {@code elapsed} ns that moved {@code bytes}: scaled so that
     * it reaches the slow-call threshold when {@code elapsed} reaches {@code slow + bytes / rate}.
     */
    long judged(long elapsedNanos, long bytes) {
        double allowance = Math.max(0, bytes) * 1e9 / bytesPerSecond;
        return (long) (elapsedNanos * (slowNanos / (slowNanos + allowance)));
    }

    /**
     * @param failedBytes the bytes a failed call is taken to have moved (an over-limit read read its limit)
     */
    private <T> T call(long failedBytes, Supplier<T> body, java.util.function.ToLongFunction<T> moved) {
        breaker.acquirePermission();
        long start = nanos.getAsLong();
        T result;
        try {
            result = body.get();
        } catch (RuntimeException | Error e) {
            breaker.onError(judged(nanos.getAsLong() - start, failedBytes), TimeUnit.NANOSECONDS, e);
            throw e;
        }
        breaker.onSuccess(judged(nanos.getAsLong() - start, moved.applyAsLong(result)), TimeUnit.NANOSECONDS);
        return result;
    }
}
