package com.fairpix.core.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Resolved configuration: one value per {@link Setting}, with where it came from.
 *
 * @throws IllegalArgumentException from {@link #load} when a value does not parse or a file is unreadable
 */
public final class FairpixConfig {
    private static final List<SettingsCheck> CHECKS = java.util.ServiceLoader.load(SettingsCheck.class, FairpixConfig.class.getClassLoader())
            .stream().map(java.util.ServiceLoader.Provider::get).toList();

    private final Map<Setting, String> values;
    private final Map<Setting, String> sources;

    private FairpixConfig(Map<Setting, String> values, Map<Setting, String> sources) {
        this.values = values;
        this.sources = sources;
    }

    /** Loads from the process environment and the file named by {@code FAIRPIX_CONFIG}, if any. */
    public static FairpixConfig fromEnvironment() {
        return load(System.getenv(), Map.of());
    }

    /**
     * @param env       environment variables ({@code FAIRPIX_*} are read)
     * @param overrides values from command-line flags, highest precedence
     */
    public static FairpixConfig load(Map<String, String> env, Map<Setting, String> overrides) {
        Properties file = new Properties();
        String configPath = env.get("FAIRPIX_CONFIG");
        if (configPath != null && !configPath.isBlank()) {
            try (Reader reader = Files.newBufferedReader(Path.of(configPath))) {
                file.load(reader);
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read config file " + configPath + " (FAIRPIX_CONFIG): " + e.getMessage(), e);
            }
        }
        Map<Setting, String> values = new EnumMap<>(Setting.class);
        Map<Setting, String> sources = new EnumMap<>(Setting.class);
        for (Setting s : Setting.values()) {
            if (overrides.containsKey(s) && overrides.get(s) != null) {
                values.put(s, overrides.get(s));
                sources.put(s, "flag");
            } else if (env.containsKey(s.env())) {
                values.put(s, env.get(s.env()));
                sources.put(s, "env " + s.env());
            } else if (file.containsKey(s.key())) {
                values.put(s, file.getProperty(s.key()));
                sources.put(s, "file " + configPath);
            } else {
                values.put(s, s.defaultValue());
                sources.put(s, "default");
            }
        }
        FairpixConfig config = new FairpixConfig(values, sources);
        config.validate();
        return config;
    }

    /** A copy with some settings replaced (tests, {@code fairpix local}). */
    public FairpixConfig with(Setting setting, String value) {
        Map<Setting, String> v = new EnumMap<>(values);
        Map<Setting, String> s = new EnumMap<>(sources);
        v.put(setting, value);
        s.put(setting, "override");
        FairpixConfig config = new FairpixConfig(v, s);
        config.validate();
        return config;
    }

    private void validate() {
        for (Setting s : List.of(Setting.JOB_PARTITIONS, Setting.INGEST_PORT, Setting.WORKER_PORT,
                Setting.WORKER_THREADS, Setting.WORKER_RESERVED_THREADS, Setting.WORKER_FINISHING_THREADS, Setting.WORKER_MAX_ATTEMPTS, Setting.WORKER_BUFFERED_JOBS,
                Setting.WORKER_PARTITION_BUFFER, Setting.WORKER_MAX_POLL_INTERVAL_MS, Setting.METRICS_TENANT_LABELS,
                Setting.AUTOSCALER_PORT, Setting.AUTOSCALER_MIN_REPLICAS, Setting.AUTOSCALER_MAX_REPLICAS,
                Setting.AUTOSCALER_QPS_SUSTAIN_SECONDS, Setting.AUTOSCALER_GROWTH_SUSTAIN_SECONDS, Setting.AUTOSCALER_STEP_CPU,
                Setting.AUTOSCALER_STEP_GPU, Setting.AUTOSCALER_STEP_PERIOD_SECONDS, Setting.AUTOSCALER_STABILIZATION_SECONDS,
                Setting.AUTOSCALER_COOLDOWN_SECONDS, Setting.AUTOSCALER_LOCAL_WORKER_THREADS)) {
            int v = integer(s);
            if (v < 0) throw new IllegalArgumentException(s.env() + " must be >= 0, got " + v);
        }
        if (longValue(Setting.MAX_UPLOAD_BYTES) <= 0) throw new IllegalArgumentException(Setting.MAX_UPLOAD_BYTES.env() + " must be > 0");
        if (longValue(Setting.WORKER_MAX_PIXELS) <= 0) throw new IllegalArgumentException(Setting.WORKER_MAX_PIXELS.env() + " must be > 0");
        if (longValue(Setting.WORKER_JOB_TIMEOUT_SECONDS) <= 0) throw new IllegalArgumentException(Setting.WORKER_JOB_TIMEOUT_SECONDS.env() + " must be > 0");
        if (longValue(Setting.WORKER_NATIVE_MEMORY_BYTES) < 64L << 20) throw new IllegalArgumentException(Setting.WORKER_NATIVE_MEMORY_BYTES.env() + " must be >= 67108864 (64 MiB)");
        if (integer(Setting.WORKER_SHARED_NICE) < 0 || integer(Setting.WORKER_SHARED_NICE) > 19) {
            throw new IllegalArgumentException(Setting.WORKER_SHARED_NICE.env() + " must be 0..19, got " + integer(Setting.WORKER_SHARED_NICE));
        }
        for (Setting s : List.of(Setting.WORKER_TENANT_BUFFER, Setting.WORKER_BUFFERED_JOBS)) {
            if (integer(s) < 1) throw new IllegalArgumentException(s.env() + " must be >= 1");
        }
        for (Setting s : List.of(Setting.WORKER_TENANT_BUFFER_BYTES, Setting.WORKER_BUFFERED_BYTES)) {
            if (longValue(s) < 65_536) throw new IllegalArgumentException(s.env() + " must be >= 65536 bytes");
        }
        if (!(decimal(Setting.TENANT_PARTITION_RATE) >= 0)) throw new IllegalArgumentException(Setting.TENANT_PARTITION_RATE.env() + " must be >= 0");
        String readAhead = get(Setting.WORKER_READ_AHEAD);
        if (!readAhead.equals("tenant") && !readAhead.equals("partition")) {
            throw new IllegalArgumentException(Setting.WORKER_READ_AHEAD.env() + " must be tenant or partition, got " + readAhead);
        }
        if (integer(Setting.WORKER_PARTITION_BUFFER) < 1) throw new IllegalArgumentException(Setting.WORKER_PARTITION_BUFFER.env() + " must be >= 1");
        String scheduler = get(Setting.WORKER_SCHEDULER);
        if (!scheduler.equals("fair") && !scheduler.equals("fifo")) throw new IllegalArgumentException(Setting.WORKER_SCHEDULER.env() + " must be fair or fifo, got " + scheduler);
        if (integer(Setting.WORKER_MAX_ATTEMPTS) < 1) throw new IllegalArgumentException(Setting.WORKER_MAX_ATTEMPTS.env() + " must be >= 1");
        if (longValue(Setting.JOB_RETENTION_SECONDS) <= 0) throw new IllegalArgumentException(Setting.JOB_RETENTION_SECONDS.env() + " must be > 0");
        integer(Setting.WEBHOOKS_PORT);
        // The other webhooks.* settings are checked by the webhooks module's DispatcherConfig, where they are parsed.
        for (Setting s : List.of(Setting.INGEST_MAX_UPLOADS_IN_FLIGHT, Setting.INGEST_MAX_TENANT_UPLOADS_IN_FLIGHT, Setting.ADMIN_TOKEN_MIN_LENGTH)) {
            if (integer(s) < 1) throw new IllegalArgumentException(s.env() + " must be >= 1");
        }
        for (SettingsCheck check : CHECKS) check.check(this);
        if (integer(Setting.AUTOSCALER_INTERVAL_SECONDS) < 1) throw new IllegalArgumentException(Setting.AUTOSCALER_INTERVAL_SECONDS.env() + " must be >= 1");
        if (integer(Setting.AUTOSCALER_MAX_REPLICAS) < integer(Setting.AUTOSCALER_MIN_REPLICAS)) {
            throw new IllegalArgumentException(Setting.AUTOSCALER_MAX_REPLICAS.env() + " must be >= " + Setting.AUTOSCALER_MIN_REPLICAS.env());
        }
        if (!(decimal(Setting.INGEST_TENANT_REFUSALS_PER_SECOND) > 0) || !Double.isFinite(decimal(Setting.INGEST_TENANT_REFUSALS_PER_SECOND))) throw new IllegalArgumentException(Setting.INGEST_TENANT_REFUSALS_PER_SECOND.env() + " must be a finite number > 0");
        if (longValue(Setting.INGEST_REFUSAL_HOLD_MS) < 0 || longValue(Setting.INGEST_REFUSAL_HOLD_MS) > 30_000) throw new IllegalArgumentException(Setting.INGEST_REFUSAL_HOLD_MS.env() + " must be 0..30000");
        if (!(decimal(Setting.INGEST_TENANT_REFUSAL_BURST) >= 1) || !Double.isFinite(decimal(Setting.INGEST_TENANT_REFUSAL_BURST))) throw new IllegalArgumentException(Setting.INGEST_TENANT_REFUSAL_BURST.env() + " must be a finite number >= 1");
        for (Setting s : List.of(Setting.AUTOSCALER_TARGET_BACKLOG, Setting.AUTOSCALER_COST_PER_JOB)) {
            if (decimal(s) <= 0) throw new IllegalArgumentException(s.env() + " must be > 0");
        }
        for (Setting s : List.of(Setting.AUTOSCALER_QPS_THRESHOLD, Setting.AUTOSCALER_BACKLOG_THRESHOLD, Setting.AUTOSCALER_GROWTH_THRESHOLD)) {
            if (decimal(s) < 0) throw new IllegalArgumentException(s.env() + " must be >= 0");
        }
        String actuator = get(Setting.AUTOSCALER_ACTUATOR);
        if (!List.of("local", "kubernetes", "dry-run").contains(actuator)) {
            throw new IllegalArgumentException(Setting.AUTOSCALER_ACTUATOR.env() + " must be local, kubernetes or dry-run, got " + actuator);
        }
        for (Setting s : List.of(Setting.BREAKER_FAILURE_RATE, Setting.BREAKER_SLOW_CALL_RATE, Setting.BREAKER_PROBE_SUCCESS)) {
            double v = decimal(s);
            if (!(v > 0 && v <= 100)) throw new IllegalArgumentException(s.env() + " must be a percentage in (0, 100], got " + v);
        }
        for (Setting s : List.of(Setting.BREAKER_SLOW_CALL_MS, Setting.BREAKER_WINDOW_CALLS, Setting.BREAKER_MINIMUM_CALLS, Setting.BREAKER_OPEN_MS,
                Setting.BREAKER_PROBES)) {
            if (longValue(s) < 1) throw new IllegalArgumentException(s.env() + " must be >= 1");
        }
        // The other overload.* settings (ramp, backlog, produce timeout) are checked by ingest's OverloadConfig, a SettingsCheck.
        if (!(decimal(Setting.ADMISSION_CAPACITY_HEADROOM) >= 1) || decimal(Setting.ADMISSION_CAPACITY_HEADROOM) > 100) {
            throw new IllegalArgumentException(Setting.ADMISSION_CAPACITY_HEADROOM.env() + " must be 1..100, got " + get(Setting.ADMISSION_CAPACITY_HEADROOM));
        }
        String pool = get(Setting.WORKER_POOL);
        if (!pool.equals("cpu") && !pool.equals("gpu")) throw new IllegalArgumentException(Setting.WORKER_POOL.env() + " must be cpu or gpu, got " + pool);
    }

    public String get(Setting s) {
        return values.get(s);
    }

    public int integer(Setting s) {
        try {
            return Integer.parseInt(values.get(s).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(s.env() + " (" + s.key() + ") must be an integer, got '" + values.get(s) + "'");
        }
    }

    public boolean bool(Setting s) {
        return Boolean.parseBoolean(values.get(s).trim());
    }

    public double decimal(Setting s) {
        try {
            return Double.parseDouble(values.get(s).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(s.env() + " (" + s.key() + ") must be a number, got '" + values.get(s) + "'");
        }
    }

    public long longValue(Setting s) {
        try {
            return Long.parseLong(values.get(s).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(s.env() + " (" + s.key() + ") must be an integer, got '" + values.get(s) + "'");
        }
    }

    /** Setting → [value, source], secrets masked; for {@code fairpix config}. */
    public Map<Setting, String[]> describe() {
        Map<Setting, String[]> out = new LinkedHashMap<>();
        for (Setting s : Setting.values()) {
            String v = values.get(s);
            boolean secret = s == Setting.ADMIN_TOKEN || s == Setting.S3_SECRET_KEY || s == Setting.METRICS_TOKEN;
            out.put(s, new String[] {secret && !v.isEmpty() ? "****" : v, sources.get(s)});
        }
        return out;
    }
}
