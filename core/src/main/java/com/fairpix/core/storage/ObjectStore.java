package com.fairpix.core.storage;

import java.io.InputStream;

/**
 * The blob store fairpix keeps originals and results in (S3 or any S3-compatible server). What
 * every implementation does is held by ObjectStoreContract (core's tests), on S3Proxy and in memory.
 */
public interface ObjectStore extends AutoCloseable {

    /** Stores {@code data} under {@code key}, replacing any object there. */
    void put(String key, byte[] data, String contentType);

    /**
     * Stores the {@code size} bytes of {@code file} under {@code key}, streaming them (an
     * implementation over the network never holds the whole file in memory); this default reads it.
     *
     * @param size the file's length, bytes
     * @throws java.io.UncheckedIOException when the file cannot be read
     */
    default void put(String key, java.nio.file.Path file, long size, String contentType) {
        try {
            put(key, java.nio.file.Files.readAllBytes(file), contentType);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Reads a whole object.
     *
     * @param maxBytes refuse objects larger than this, bytes
     * @throws ObjectNotFoundException when there is no such key
     * @throws ObjectTooLargeException when the object is larger than {@code maxBytes}
     */
    byte[] get(String key, long maxBytes);

    /**
     * Opens an object for streaming; the caller closes the stream.
     *
     * @throws ObjectNotFoundException when there is no such key
     */
    InputStream open(String key);

    /** Creates the bucket when it is missing. */
    void ensureBucket();

    /** True when the store answers (readiness). */
    boolean ping();

    @Override
    void close();

    /** No object under the key. */
    final class ObjectNotFoundException extends RuntimeException {
        public ObjectNotFoundException(String key) {
            super("no object at " + key);
        }
    }

    /**
     * An object larger than the caller's limit: an answer about one request (the tenant named a
     * too-large object), never a sign that the store is down.
     */
    final class ObjectTooLargeException extends IllegalStateException {
        private final long limit;

        public ObjectTooLargeException(String key, long limit) {
            super("object " + key + " is over the limit of " + limit + " bytes");
            this.limit = limit;
        }

        /** The limit the object passed, bytes. */
        public long limit() { return limit; }
    }
}
