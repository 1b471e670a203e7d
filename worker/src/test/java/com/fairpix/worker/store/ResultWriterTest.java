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
}
