package com.fairpix.core.resilience;

import com.fairpix.core.storage.ObjectStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.io.InputStream;

/**
 * An {@link ObjectStore} whose data calls go through the S3 circuit breaker: while it is open they
 * fail at once with {@link io.github.resilience4j.circuitbreaker.CallNotPermittedException}
 * instead of waiting on a dead endpoint. {@code ensureBucket}, {@code ping} and {@code close}
 * bypass it (start-up and health checks must see the real answer).
 */
public final class GuardedObjectStore implements ObjectStore {
    private final ObjectStore delegate;
    private final CircuitBreaker breaker;

    public GuardedObjectStore(ObjectStore delegate, CircuitBreaker breaker) {
        this.delegate = delegate;
        this.breaker = breaker;
    }

    @Override
    public void put(String key, byte[] data, String contentType) {
        breaker.executeRunnable(() -> delegate.put(key, data, contentType));
    }

    @Override
    public void put(String key, java.nio.file.Path file, long size, String contentType) {
        breaker.executeRunnable(() -> delegate.put(key, file, size, contentType));
    }

    @Override
    public byte[] get(String key, long maxBytes) {
        return breaker.executeSupplier(() -> delegate.get(key, maxBytes));
    }

    @Override
    public InputStream open(String key) {
        return breaker.executeSupplier(() -> delegate.open(key));
    }

    @Override
    public void ensureBucket() { delegate.ensureBucket(); }

    @Override
    public boolean ping() { return delegate.ping(); }

    @Override
    public void close() { delegate.close(); }
}
