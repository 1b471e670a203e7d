package com.fairpix.core.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.error.RetryLater;
import com.fairpix.core.storage.ObjectStore;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.net.SocketTimeoutException;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Which failures are a dependency's outage (the job keeps its attempt) and which are one request's answer. */
class OutagesTest {

    static S3Exception s3(int status) {
        return (S3Exception) S3Exception.builder().statusCode(status).message("status " + status).build();
    }

    @Test
    void aRedisTimeoutOrRefusedConnectionIsARedisOutage() {
        assertThat(Outages.of(new JedisConnectionException(new SocketTimeoutException("Read timed out")))).contains(Dependency.REDIS);
        assertThat(Outages.of(new IllegalStateException("wrapped", new JedisConnectionException("Connection refused")))).contains(Dependency.REDIS);
        assertThat(Outages.of(new JedisDataException("CLUSTERDOWN The cluster is down"))).contains(Dependency.REDIS);
        assertThat(Outages.of(new JedisDataException("WRONGTYPE Operation against a key holding the wrong kind of value"))).isEmpty();
    }

    @Test
    void aKafkaClientFailureOrAnUnacknowledgedPublishIsAKafkaOutage() {
        assertThat(Outages.of(new ExecutionException(new org.apache.kafka.common.errors.TimeoutException("Expiring 1 record(s)")))).contains(Dependency.KAFKA);
        assertThat(Outages.of(new org.apache.kafka.common.errors.NotEnoughReplicasException("isr 1 < 2"))).contains(Dependency.KAFKA);
        assertThat(Outages.of(new RetryLater(RetryLater.Kind.DEPENDENCY, "kafka", "no ack", 0, new java.util.concurrent.TimeoutException()))).contains(Dependency.KAFKA);
        assertThat(Outages.of(new ExecutionException(new org.apache.kafka.common.errors.RecordTooLargeException("too large"))))
                .as("a record too large is the request's own").isEmpty();
    }

    @Test
    void anS3ServerErrorOrTimeoutIsAnS3OutageButATenantsOwn4xxIsNot() {
        assertThat(Outages.of(s3(503))).contains(Dependency.S3);
        assertThat(Outages.of(s3(500))).contains(Dependency.S3);
        assertThat(Outages.of(s3(403))).as("the farm's credentials").contains(Dependency.S3);
        assertThat(Outages.of(s3(429))).contains(Dependency.S3);
        assertThat(Outages.of(SdkClientException.create("Unable to execute HTTP request: Read timed out"))).contains(Dependency.S3);
        assertThat(Outages.of(s3(400))).as("issue 33: a tenant's input error never trips shared breakers").isEmpty();
        assertThat(Outages.of(s3(404))).isEmpty();
        assertThat(Outages.of(new ObjectStore.ObjectNotFoundException("k"))).isEmpty();
    }

    @Test
    void aCallAnOpenBreakerRefusedIsAnOutageOfItsDependency() {
        CircuitBreaker redis = CircuitBreaker.ofDefaults("redis");
        redis.transitionToForcedOpenState();
        assertThat(Outages.of(CallNotPermittedException.createCallNotPermittedException(redis))).contains(Dependency.REDIS);
    }

    @Test
    void theJobsOwnFailuresAreNoOutage() {
        assertThat(Outages.of(new IllegalArgumentException("unsupported format"))).isEqualTo(Optional.empty());
        assertThat(Outages.of(new OutOfMemoryError())).isEmpty();
        assertThat(Outages.of(null)).isEmpty();
    }
}
