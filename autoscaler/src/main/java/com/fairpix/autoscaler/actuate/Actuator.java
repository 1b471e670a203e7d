package com.fairpix.autoscaler.actuate;

import java.util.List;
import java.util.Map;

/** Changes and reports the number of workers of a pool. */
public interface Actuator extends AutoCloseable {

    /** A failure to read or change replicas; the autoscaler holds and retries next period. */
    final class ActuatorException extends RuntimeException {
        public ActuatorException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** {@code local}, {@code kubernetes} or {@code dry-run}. */
    String kind();

    /** Replicas of {@code pool} that run now (or, for Kubernetes, that the Deployment asks for). */
    int replicas(String pool);

    /** Makes {@code pool} run {@code replicas} workers; returns without waiting for them to be ready. */
    void scale(String pool, int replicas);

    /** What the actuator knows about each replica (pids, log files, ready counts), for status. */
    default List<Map<String, Object>> details(String pool) {
        return List.of();
    }

    @Override
    default void close() {}
}
