package com.fairpix.core.resilience;

import com.fairpix.core.storage.ObjectStore;
import java.util.Set;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Failures that are answers about one request, not signs that a dependency is down: they must
 * never count against its circuit breaker, or one tenant's bad requests (a key S3 calls too long,
 * a record Kafka calls too large) would open a farm-wide breaker and pause every tenant.
 *
 * <p>Client errors: a missing object, an object over the caller's size limit; S3 4xx other than 401/403 (credentials: the whole farm's
 * problem), 408 and 429 (the service is slow or throttling); Kafka's record-too-large,
 * batch-too-large, invalid-topic and serialization errors. Wrapping exceptions
 * ({@code ExecutionException}, {@code CompletionException}, ...) are looked through.
 */
public final class ClientErrors {
    private static final Set<Integer> DEPENDENCY_4XX = Set.of(401, 403, 408, 429);

    private ClientErrors() {}

    /** True when {@code t}, or an exception it wraps, is a client error. */
    public static boolean is(Throwable t) {
        for (Throwable c = t, prev = null; c != null && c != prev; prev = c, c = c.getCause()) {
            if (c instanceof ObjectStore.ObjectNotFoundException || c instanceof ObjectStore.ObjectTooLargeException) return true;
            if (c instanceof S3Exception s3) {
                int status = s3.statusCode();
                return status >= 400 && status < 500 && !DEPENDENCY_4XX.contains(status);
            }
            if (c instanceof RecordTooLargeException || c instanceof RecordBatchTooLargeException
                    || c instanceof InvalidTopicException || c instanceof SerializationException) {
                return true;
            }
        }
        return false;
    }
}
