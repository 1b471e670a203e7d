package com.fairpix.worker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.error.FairpixException;
import com.fairpix.core.error.Permanent;
import com.fairpix.core.job.JobMessage;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.storage.InMemoryObjectStore;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ResultWriterTest {
    final InMemoryObjectStore store = new InMemoryObjectStore();
    final ResultWriter writer = new ResultWriter(store, 1 << 20);
    final JobMessage message = new JobMessage(JobMessage.SCHEMA_VERSION, "j1", "acme", "cpu",
            new JobRecord.Original("tenants/acme/originals/2026/01/01/j1.jpg", "jpeg", 10, "x", 1, 1),
            JobSpec.parse("{\"variants\":{\"v\":[{\"op\":\"flip\"}]}}"), 1, Instant.EPOCH);

    @Test
    void watermarkIsReadFromTheTenantsOwnPrefix() {
        store.put("tenants/acme/brand/logo.png", new byte[] {1, 2}, "image/png");
        assertThat(writer.readAsset(message, "tenants/acme/brand/logo.png")).containsExactly(1, 2);
    }

    @Test
    void anotherTenantsObjectIsRefusedEvenIfItExists() {
        store.put("tenants/other/brand/logo.png", new byte[] {1}, "image/png");
        for (String key : new String[] {"tenants/other/brand/logo.png", "tenants/acme/../other/brand/logo.png", "tenants/acmex/logo.png"}) {
            assertThatThrownBy(() -> writer.readAsset(message, key)).as(key).isInstanceOf(Permanent.class)
                    .extracting(e -> ((FairpixException) e).reason()).isEqualTo("forbidden-key");
        }
    }

    @Test
    void aMissingWatermarkIsAPermanentFailure() {
        assertThatThrownBy(() -> writer.readAsset(message, "tenants/acme/nope.png"))
                .extracting(e -> ((FairpixException) e).reason()).isEqualTo("asset-not-found");
    }

    @Test
    void aWatermarkOverTheReadLimitIsAPermanentFailureNotAnS3Failure() {
        var s3 = com.fairpix.core.resilience.Breakers.of(new com.fairpix.core.resilience.BreakerSettings(50, 80, java.time.Duration.ofSeconds(1),
                10, 5, java.time.Duration.ofSeconds(5), 2, 95)).get(com.fairpix.core.resilience.Dependency.S3);
        ResultWriter guarded = new ResultWriter(new com.fairpix.core.resilience.GuardedObjectStore(store, s3), 1 << 20);
        store.put("tenants/acme/results/old/big.png", new byte[(1 << 20) + 1], "image/png");
        for (int i = 0; i < 20; i++) {
            assertThatThrownBy(() -> guarded.readAsset(message, "tenants/acme/results/old/big.png"))
                    .extracting(e -> ((FairpixException) e).reason()).isEqualTo("asset-too-large");
        }
        assertThat(s3.getMetrics().getNumberOfFailedCalls()).as("the tenant's error is not S3's").isZero();
        assertThat(s3.getState()).isEqualTo(io.github.resilience4j.circuitbreaker.CircuitBreaker.State.CLOSED);
    }

    @Test
    void anOriginalOverTheReadLimitIsAPermanentFailure() {
        store.put(message.original().key(), new byte[(1 << 20) + 1], "image/jpeg");
        assertThatThrownBy(() -> writer.readOriginal(message))
                .extracting(e -> ((FairpixException) e).reason()).isEqualTo("original-too-large");
    }
}
