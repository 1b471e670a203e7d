package com.fairpix.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.config.FairpixConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The ingest-api's settings read once into typed values; a weak admin token is refused when they are. */
class IngestConfigTest {
    static IngestConfig load(Map<String, String> env) {
        return IngestConfig.from(FairpixConfig.load(env, Map.of()));
    }

    @Test
    void theDefaults() {
        IngestConfig c = load(Map.of());

        assertThat(c.port()).isEqualTo(8080);
        assertThat(c.adminToken()).as("empty: the admin API is off").isEmpty();
        assertThat(c.uploadDir()).isEqualTo(Path.of(System.getProperty("java.io.tmpdir"), "fairpix-uploads"));
        assertThat(load(Map.of("FAIRPIX_INGEST_UPLOAD_DIR", "/var/spool/fairpix")).uploadDir()).isEqualTo(Path.of("/var/spool/fairpix"));
        assertThat(c.maxUploadsInFlight()).isEqualTo(64);
        assertThat(c.maxTenantUploadsInFlight()).isEqualTo(8);
        assertThat(c.refusalHold()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.jobRetention()).isEqualTo(Duration.ofDays(7));
        assertThat(c.admission().measuredCapacity()).isTrue();
        assertThat(c.spec().maxVariants()).isEqualTo(16);
        assertThat(c.metrics().onServicePort()).isTrue();
    }

    @Test
    void aWeakAdminTokenIsRefusedForItsMinimumLength() {
        assertThatThrownBy(() -> load(Map.of("FAIRPIX_ADMIN_TOKEN", "k3Q9x-short")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_ADMIN_TOKEN").hasMessageContaining("FAIRPIX_ADMIN_TOKEN_MIN_LENGTH");
        assertThat(load(Map.of("FAIRPIX_ADMIN_TOKEN", "k3Q9x-short", "FAIRPIX_ADMIN_TOKEN_MIN_LENGTH", "8")).adminToken()).isEqualTo("k3Q9x-short");
    }
}
