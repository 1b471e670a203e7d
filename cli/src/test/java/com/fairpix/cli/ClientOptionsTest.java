package com.fairpix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI finds the services' URLs and the admin token as every setting is found; --url and --admin-token win. */
class ClientOptionsTest {
    @Test
    void aFlagWins() {
        assertThat(ClientOptions.setting("http://ingest.example:9000", Setting.URL)).isEqualTo("http://ingest.example:9000");
    }

    @Test
    void withoutOneTheSettingIsResolvedFromTheEnvironmentOrTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("fairpix.properties");
        Files.writeString(file, "cli.autoscaler-url=http://autoscaler.example:8082\n");
        FairpixConfig config = FairpixConfig.load(Map.of("FAIRPIX_URL", "http://ingest.example:8080", "FAIRPIX_CONFIG", file.toString()), Map.of());

        assertThat(ClientOptions.setting(Setting.URL, config)).isEqualTo("http://ingest.example:8080");
        assertThat(ClientOptions.setting(Setting.AUTOSCALER_URL, config)).isEqualTo("http://autoscaler.example:8082");
    }

    @Test
    void blankMeansTheDefaultAndNoTokenIsNull() {
        FairpixConfig config = FairpixConfig.load(Map.of("FAIRPIX_URL", " "), Map.of());

        assertThat(ClientOptions.setting(Setting.URL, config)).isEqualTo("http://127.0.0.1:8080");
        assertThat(ClientOptions.setting(Setting.ADMIN_TOKEN, config)).isNull();
    }
}
