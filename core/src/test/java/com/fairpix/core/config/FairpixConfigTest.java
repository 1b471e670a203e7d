package com.fairpix.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.pool.Pool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Configuration: precedence flag > env > file > default, validation, and printing without secrets. */
class FairpixConfigTest {
    @TempDir Path dir;

    @Test
    void withNothingSetEverySettingHasItsDefault() {
        FairpixConfig config = FairpixConfig.load(Map.of(), Map.of());

        for (Setting s : Setting.values()) {
            assertThat(config.get(s)).as(s.name()).isEqualTo(s.defaultValue());
            assertThat(config.describe().get(s)[1]).as(s.name()).isEqualTo("default");
        }
        assertThat(config.integer(Setting.INGEST_PORT)).isEqualTo(8080);
    }

    @Test
    void flagBeatsEnvBeatsFileBeatsDefault() throws IOException {
        Path file = properties("""
                kafka.bootstrap=file:1
                redis.url=redis://file:2
                s3.bucket=from-file
                """);
        Map<String, String> env = Map.of(
                "FAIRPIX_CONFIG", file.toString(),
                "FAIRPIX_KAFKA_BOOTSTRAP", "env:1",
                "FAIRPIX_REDIS_URL", "redis://env:2");
        Map<Setting, String> flags = Map.of(Setting.KAFKA_BOOTSTRAP, "flag:1");

        FairpixConfig config = FairpixConfig.load(env, flags);

        assertThat(config.get(Setting.KAFKA_BOOTSTRAP)).isEqualTo("flag:1");          // flag, env, file
        assertThat(config.get(Setting.REDIS_URL)).isEqualTo("redis://env:2");         // env, file
        assertThat(config.get(Setting.S3_BUCKET)).isEqualTo("from-file");             // file
        assertThat(config.get(Setting.S3_REGION)).isEqualTo("us-east-1");             // default
        Map<Setting, String[]> described = config.describe();
        assertThat(described.get(Setting.KAFKA_BOOTSTRAP)[1]).isEqualTo("flag");
        assertThat(described.get(Setting.REDIS_URL)[1]).isEqualTo("env FAIRPIX_REDIS_URL");
        assertThat(described.get(Setting.S3_BUCKET)[1]).isEqualTo("file " + file);
        assertThat(described.get(Setting.S3_REGION)[1]).isEqualTo("default");
    }

    @Test
    void aNullFlagDoesNotHideTheEnvironment() {
        Map<Setting, String> flags = new HashMap<>();
        flags.put(Setting.WORKER_POOL, null); // an option the user did not give

        FairpixConfig config = FairpixConfig.load(Map.of("FAIRPIX_WORKER_POOL", "gpu"), flags);

        assertThat(config.get(Setting.WORKER_POOL)).isEqualTo("gpu");
    }

    @Test
    void anEmptyEnvironmentValueStillCounts() {
        // FAIRPIX_S3_ENDPOINT= (empty) means "AWS itself"; it must not fall back to the local default.
        FairpixConfig config = FairpixConfig.load(Map.of("FAIRPIX_S3_ENDPOINT", ""), Map.of());

        assertThat(config.get(Setting.S3_ENDPOINT)).isEmpty();
    }

    @Test
    void badIntegerInTheEnvironmentNamesTheVariable() {
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_INGEST_PORT", "eighty"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("FAIRPIX_INGEST_PORT")
                .hasMessageContaining("eighty");
    }

    @Test
    void badIntegerInTheFileNamesTheSetting() throws IOException {
        Path file = properties("worker.threads=many\n");

        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_CONFIG", file.toString()), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("FAIRPIX_WORKER_THREADS")
                .hasMessageContaining("worker.threads");
    }

    @Test
    void outOfRangeValuesAreRefused() {
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_WORKER_THREADS", "-1"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_WORKER_THREADS");
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_WORKER_PARTITION_BUFFER", "0"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_WORKER_PARTITION_BUFFER");
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_MAX_UPLOAD_BYTES", "0"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_MAX_UPLOAD_BYTES");
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_INGEST_TENANT_REFUSALS_PER_SECOND", "0"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_INGEST_TENANT_REFUSALS_PER_SECOND");
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_INGEST_TENANT_REFUSALS_PER_SECOND", "Infinity"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_INGEST_TENANT_REFUSALS_PER_SECOND");
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_INGEST_TENANT_REFUSAL_BURST", "0.5"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_INGEST_TENANT_REFUSAL_BURST");
        assertThatThrownBy(() -> FairpixConfig.load(Map.of(), Map.of(Setting.WORKER_POOL, "tpu")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_WORKER_POOL").hasMessageContaining("tpu");
    }

    @Test
    void aRefusalNamesTheVariableAndWhatItAccepts() {
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_WORKER_POOL", "tpu"), Map.of()))
                .hasMessage("FAIRPIX_WORKER_POOL must be cpu or gpu, got tpu");
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_WORKER_SHARED_NICE", "20"), Map.of()))
                .hasMessage("FAIRPIX_WORKER_SHARED_NICE must be 0..19");
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_RAMP_START", "0"), Map.of()))
                .hasMessage("FAIRPIX_RAMP_START must be in (0, 1]");
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_AUTOSCALER_POOLS", "cpu, tpu"), Map.of()))
                .hasMessage("FAIRPIX_AUTOSCALER_POOLS must list cpu or gpu, comma-separated, got tpu");
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_AUTOSCALER_POOLS", " , "), Map.of()))
                .hasMessage("FAIRPIX_AUTOSCALER_POOLS must list at least one of cpu or gpu");
    }

    @Test
    void oneLoadReportsEveryBadValue() {
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_WORKER_THREADS", "-1", "FAIRPIX_WORKER_SCHEDULER", "lottery"), Map.of()))
                .hasMessageContaining("FAIRPIX_WORKER_THREADS must be >= 0")
                .hasMessageContaining("FAIRPIX_WORKER_SCHEDULER must be fair or fifo, got lottery");
    }

    @Test
    void eachConstraintDescribesWhatItAcceptsForTheTable() {
        assertThat(Setting.WORKER_SHARED_NICE.constraint().describe()).isEqualTo("integer 0..19");
        assertThat(Setting.WORKER_NATIVE_MEMORY_BYTES.constraint().describe()).isEqualTo("integer >= 67108864");
        assertThat(Setting.BREAKER_FAILURE_RATE.constraint().describe()).isEqualTo("number in (0, 100]");
        assertThat(Setting.INGEST_TENANT_REFUSALS_PER_SECOND.constraint().describe()).isEqualTo("finite number > 0");
        assertThat(Setting.ADMISSION_FARM_CAPACITY.constraint().describe()).isEqualTo("measured or number 0..1000000");
        assertThat(Setting.WEBHOOKS_PORT.constraint().describe()).isEqualTo("integer");
        assertThat(Setting.AUTOSCALER_ACTUATOR.constraint().describe()).isEqualTo("local|kubernetes|dry-run");
        assertThat(Setting.ADMISSION_SHADOW.constraint().describe()).isEqualTo("list of rate|daily-quota|concurrency, or empty");
        assertThat(Setting.REDIS_URL.constraint().describe()).isEmpty();
    }

    enum Actuator { LOCAL, KUBERNETES, DRY_RUN }

    @Test
    void choicesAndListsAreReadTyped() {
        FairpixConfig config = FairpixConfig.load(Map.of("FAIRPIX_AUTOSCALER_ACTUATOR", "dry-run", "FAIRPIX_ADMISSION_SHADOW", " rate,,concurrency "), Map.of());

        assertThat(config.choice(Setting.AUTOSCALER_ACTUATOR, Actuator.class)).isEqualTo(Actuator.DRY_RUN);
        assertThat(config.list(Setting.ADMISSION_SHADOW)).containsExactly("rate", "concurrency");
        assertThat(FairpixConfig.load(Map.of("FAIRPIX_WORKER_POOL", " gpu "), Map.of()).choice(Setting.WORKER_POOL, Pool.class))
                .as("a choice is compared, and read, trimmed").isEqualTo(Pool.GPU);
    }

    /** Settings other packages give meaning to (the S3 client, spec limits, the metrics listener) are refused by their constraints on every load. */
    @Test
    void settingsOtherPackagesGiveMeaningToAreCheckedOnLoad() {
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_S3_HTTP_CLIENT", "netty"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_S3_HTTP_CLIENT");
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_SPEC_MAX_VARIANTS", "0"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_SPEC_MAX_VARIANTS");
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_METRICS_PORT", "70000"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_METRICS_PORT");
    }

    @Test
    void unreadableConfigFileIsAnErrorNamingIt() {
        Path missing = dir.resolve("nope.properties");

        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_CONFIG", missing.toString()), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(missing.toString())
                .hasMessageContaining("FAIRPIX_CONFIG");
    }

    @Test
    void secretsAreMaskedWhenDescribedButUsableWhenRead() {
        FairpixConfig config = FairpixConfig.load(Map.of(
                "FAIRPIX_ADMIN_TOKEN", "s3cr3t-admin",
                "FAIRPIX_S3_SECRET_KEY", "s3cr3t-key",
                "FAIRPIX_S3_ACCESS_KEY", "AKIAEXAMPLE"), Map.of());

        Map<Setting, String[]> described = config.describe();

        assertThat(described.get(Setting.ADMIN_TOKEN)[0]).isEqualTo("****");
        assertThat(described.get(Setting.S3_SECRET_KEY)[0]).isEqualTo("****");
        assertThat(described.get(Setting.S3_ACCESS_KEY)[0]).as("an access key id is not a secret").isEqualTo("AKIAEXAMPLE");
        assertThat(described.values()).allSatisfy(row -> assertThat(String.join(" ", row)).doesNotContain("s3cr3t"));
        assertThat(config.get(Setting.ADMIN_TOKEN)).isEqualTo("s3cr3t-admin");
        assertThat(config.get(Setting.S3_SECRET_KEY)).isEqualTo("s3cr3t-key");
    }

    @Test
    void secretsFromTheDefaultAreMaskedTooAndAnEmptyOneShowsAsEmpty() {
        Map<Setting, String[]> described = FairpixConfig.load(Map.of(), Map.of()).describe();

        assertThat(described.get(Setting.S3_SECRET_KEY)[0]).isEqualTo("****");
        assertThat(described.get(Setting.ADMIN_TOKEN)[0]).as("empty: admin API disabled, nothing to hide").isEmpty();
    }

    @Test
    void describeListsEverySettingInDeclarationOrder() {
        Map<Setting, String[]> described = FairpixConfig.load(Map.of(), Map.of()).describe();

        assertThat(described.keySet()).containsExactly(Setting.values());
    }

    @Test
    void withReplacesOneSettingAndRevalidates() {
        FairpixConfig config = FairpixConfig.load(Map.of(), Map.of());

        FairpixConfig changed = config.with(Setting.WORKER_PORT, "0");

        assertThat(changed.integer(Setting.WORKER_PORT)).isZero();
        assertThat(changed.describe().get(Setting.WORKER_PORT)[1]).isEqualTo("override");
        assertThat(config.integer(Setting.WORKER_PORT)).as("the original is unchanged").isEqualTo(8081);
        assertThatThrownBy(() -> config.with(Setting.WORKER_PORT, "x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everySettingHasADistinctKeyAndADoc() {
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (Setting s : Setting.values()) {
            assertThat(keys.add(s.key())).as("duplicate key %s", s.key()).isTrue();
            assertThat(s.doc()).as(s.key()).isNotBlank();
        }
    }

    /**
     * The environment variables and keys are what operators put in their manifests: they are pinned
     * in config/settings.txt, so renaming an enum constant (the variable follows its name) or a key is
     * a change someone made on purpose, not a side effect of a refactoring.
     */
    @Test
    void theEnvironmentVariablesAndKeysAreTheOnesPinned() throws IOException {
        List<String> pinned;
        try (var in = FairpixConfigTest.class.getResourceAsStream("/config/settings.txt")) {
            assertThat(in).isNotNull();
            pinned = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines()
                    .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        }
        List<String> now = java.util.Arrays.stream(Setting.values()).map(s -> s.env() + " " + s.key()).toList();
        assertThat(now).containsExactlyInAnyOrderElementsOf(pinned);
    }

    /** README's configuration table names only variables that exist ({@code _SUFFIX} shorthand expanded). */
    @Test
    void theReadmesTableNamesRealVariables() throws IOException {
        Path readme = null;
        for (Path dir = Path.of("").toAbsolutePath(); dir != null && readme == null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("core"))) readme = dir.resolve("README.md");
        }
        assertThat(readme).as("the repository's README.md above " + Path.of("").toAbsolutePath()).isNotNull();
        java.util.Set<String> known = new java.util.HashSet<>();
        for (Setting s : Setting.values()) known.add(s.env());
        List<String> named = new java.util.ArrayList<>();
        for (String line : Files.readAllLines(readme)) {
            if (!line.startsWith("| `FAIRPIX_")) continue;
            String first = null;
            for (String cell : line.split("\\|")[1].split(",")) {
                String name = cell.trim().replace("`", "");
                if (name.startsWith("FAIRPIX_")) {
                    first = name;
                    named.add(name);
                } else if (name.startsWith("_") && first != null) {
                    named.add(expand(first, name));
                }
            }
        }
        assertThat(named).as("variables README's table names").hasSizeGreaterThan(20);
        assertThat(named).as("every one a setting's variable").allSatisfy(n -> assertThat(known).contains(n));
    }

    /** {@code FAIRPIX_WORKER_BUFFERED_JOBS} + {@code _BUFFERED_BYTES} → {@code FAIRPIX_WORKER_BUFFERED_BYTES}; {@code FAIRPIX_SPEC_MAX_BYTES} + {@code _VARIANTS} → {@code FAIRPIX_SPEC_MAX_VARIANTS}. */
    static String expand(String first, String shorthand) {
        String head = shorthand.substring(1).split("_")[0];
        int at = first.indexOf("_" + head + "_");
        if (at < 0 && first.endsWith("_" + head)) at = first.length() - head.length() - 1;
        return at > 0 ? first.substring(0, at) + shorthand : first.substring(0, first.lastIndexOf('_')) + shorthand;
    }

    private Path properties(String text) throws IOException {
        Path file = dir.resolve("fairpix.properties");
        Files.writeString(file, text);
        return file;
    }
}
