package com.fairpix.core.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.storage.ObjectStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** A tenant's bad requests never open a dependency's breaker; real outages still do. */
class ClientErrorsTest {
    static final BreakerSettings SETTINGS = new BreakerSettings(50, 80, Duration.ofSeconds(1), 10, 5, Duration.ofSeconds(5), 2, 95);

    static S3Exception s3(int status, String code) {
        return (S3Exception) S3Exception.builder().statusCode(status).message(code).build();
    }

    @Test
    void classifiesAnswersAndOutages() {
        assertThat(ClientErrors.is(s3(400, "KeyTooLongError"))).isTrue();
        assertThat(ClientErrors.is(new ObjectStore.ObjectNotFoundException("k"))).isTrue();
        assertThat(ClientErrors.is(new ObjectStore.ObjectTooLargeException("k", 10))).as("the tenant's own too-large asset").isTrue();
        assertThat(ClientErrors.is(new ExecutionException(new RecordTooLargeException("1 MiB")))).isTrue();
        assertThat(ClientErrors.is(s3(503, "SlowDown"))).isFalse();
        assertThat(ClientErrors.is(s3(403, "AccessDenied"))).as("credentials: every tenant's problem").isFalse();
        assertThat(ClientErrors.is(s3(429, "TooManyRequests"))).isFalse();
        assertThat(ClientErrors.is(new java.net.ConnectException("refused"))).isFalse();
    }

    @Test
    void aFloodOfClientErrorsLeavesTheBreakerClosed() {
        Breakers breakers = Breakers.of(SETTINGS);
        CircuitBreaker s3 = breakers.get(Dependency.S3);
        CircuitBreaker kafka = breakers.get(Dependency.KAFKA);
        for (int i = 0; i < 50; i++) {
            try {
                s3.executeRunnable(() -> { throw s3(400, "KeyTooLongError"); });
            } catch (S3Exception expected) {
                // the caller sees it; the breaker does not count it
            }
            try {
                kafka.executeCallable(() -> { throw new ExecutionException(new RecordTooLargeException("too large")); });
            } catch (Exception expected) {
                // idem
            }
        }
        assertThat(s3.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(kafka.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        for (int i = 0; i < 10; i++) {
            try {
                s3.executeRunnable(() -> { throw s3(503, "SlowDown"); });
            } catch (RuntimeException expected) {
                // counted (and, once open, refused)
            }
        }
        assertThat(s3.getState()).as("an outage still opens it").isEqualTo(CircuitBreaker.State.OPEN);
    }
}
