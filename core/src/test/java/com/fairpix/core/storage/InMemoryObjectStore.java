package com.fairpix.core.storage;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** An {@link ObjectStore} in memory for unit tests; ObjectStoreContract holds it to what S3ObjectStore does. */
public final class InMemoryObjectStore implements ObjectStore {
    private final Map<String, byte[]> objects = new ConcurrentHashMap<>();
    private volatile RuntimeException failPuts;

    /** Every later put throws {@code failure} (S3 away, a refused key); null: puts store again. */
    public void failPuts(RuntimeException failure) {
        this.failPuts = failure;
    }

    @Override
    public void put(String key, byte[] data, String contentType) {
        if (failPuts != null) throw failPuts;
        objects.put(key, data.clone());
    }

    @Override
    public byte[] get(String key, long maxBytes) {
        byte[] d = objects.get(key);
        if (d == null) throw new ObjectNotFoundException(key);
        if (d.length > maxBytes) throw new ObjectTooLargeException(key, maxBytes);
        return d.clone();
    }

    @Override
    public InputStream open(String key) {
        return new ByteArrayInputStream(get(key, Long.MAX_VALUE));
    }

    @Override
    public void ensureBucket() {}

    @Override
    public boolean ping() {
        return true;
    }

    @Override
    public void close() {}
}
