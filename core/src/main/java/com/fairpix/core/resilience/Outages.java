package com.fairpix.core.resilience;

import com.fairpix.core.error.RetryLater;
import com.fairpix.core.redis.Redis;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * Tells an outage of a shared dependency from a failure of one request: the question a worker asks
 * before it charges a job an attempt (issue 34: an outage never costs a job an attempt).
 *
 * <p>An outage of:
 * <ul>
 *   <li><b>Redis</b>: anything {@link Redis#isOutage} says (a connection refused or reset, a read
 *       timeout, the cluster client out of attempts, CLUSTERDOWN/READONLY/LOADING/TRYAGAIN/…);</li>
 *   <li><b>Kafka</b>: any Kafka client exception (a delivery timeout, not enough replicas, a lost
 *       leader, a network error) and a {@link RetryLater} of kind dependency named {@code kafka}
 *       (the worker's event publisher throws one when the broker does not acknowledge in time);</li>
 *   <li><b>S3</b>: an {@link SdkClientException} (no connection, a call or attempt timed out, a body
 *       that broke off mid-read) and a service answer of 5xx, 401, 403, 408 or 429;</li>
 *   <li>any dependency whose circuit breaker refused the call ({@link CallNotPermittedException}).</li>
 * </ul>
 * Never an outage: a client error ({@link ClientErrors}: a missing object, S3's other 4xx for this
 * tenant's key, Kafka's record-too-large, …). Those are answers about one tenant's request, so they
 * count against its job's attempts and never trip a shared breaker (issue 33). Wrapping exceptions
 * are looked through.
 */
public final class Outages {
    private Outages() {}

    /**
     * Which dependency {@code t} says is out, if any.
     *
     * @return the dependency down; empty for a client error or a failure of the work itself
     */
    public static Optional<Dependency> of(Throwable t) {
        if (t == null || ClientErrors.is(t)) return Optional.empty();
        if (Redis.isOutage(t)) return Optional.of(Dependency.REDIS);
        for (Throwable c = t, prev = null; c != null && c != prev; prev = c, c = c.getCause()) {
            if (c instanceof CallNotPermittedException refused) {
                return byName(refused.getCausingCircuitBreakerName());
            }
            if (c instanceof RetryLater r && r.kind() == RetryLater.Kind.DEPENDENCY) {
                Optional<Dependency> d = byName(r.what());
                if (d.isPresent()) return d;
            }
            if (c instanceof org.apache.kafka.common.KafkaException) return Optional.of(Dependency.KAFKA);
            if (c instanceof SdkClientException) return Optional.of(Dependency.S3);
            if (c instanceof SdkServiceException s) {
                int status = s.statusCode();
                if (status >= 500 || status == 401 || status == 403 || status == 408 || status == 429) return Optional.of(Dependency.S3);
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** True when {@code t} is an outage of some dependency ({@link #of}). */
    public static boolean is(Throwable t) {
        return of(t).isPresent();
    }

    private static Optional<Dependency> byName(String name) {
        for (Dependency d : Dependency.values()) if (d.id().equals(name)) return Optional.of(d);
        return Optional.empty();
    }
}
