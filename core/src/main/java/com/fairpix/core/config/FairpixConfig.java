package com.fairpix.core.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Resolved configuration: one value per {@link Setting}, with where it came from.
 *
 * @throws IllegalArgumentException from {@link #load} and {@link #with} when a value breaks its
 *         setting's constraint or a module's {@link SettingsCheck}, or the file is unreadable
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

    /**
     * Checks every setting against its {@link Setting#constraint()}, then, when they all pass, runs
     * the {@link SettingsCheck}s of the modules on the class path.
     *
     * @throws IllegalArgumentException listing every problem found, "; "-separated, each naming its setting
     */
    private void validate() {
        List<String> problems = new ArrayList<>();
        for (Setting s : Setting.values()) s.constraint().problem(s, values.get(s)).ifPresent(problems::add);
        // The checks read typed values, which would only repeat a constraint's problem.
        if (problems.isEmpty()) {
            for (SettingsCheck check : CHECKS) {
                try {
                    check.check(this);
                } catch (IllegalArgumentException e) {
                    problems.add(e.getMessage());
                }
            }
        }
        if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("; ", problems));
    }

    public String get(Setting s) {
        return values.get(s);
    }

    /** @throws IllegalArgumentException naming the setting when its value is not a 32-bit integer */
    public int integer(Setting s) {
        return Constraint.Type.INTEGER.parse(s, values.get(s)).intValue();
    }

    public boolean bool(Setting s) {
        return Boolean.parseBoolean(values.get(s).trim());
    }

    /** @throws IllegalArgumentException naming the setting when its value is not a number */
    public double decimal(Setting s) {
        return Constraint.Type.NUMBER.parse(s, values.get(s)).doubleValue();
    }

    /** @throws IllegalArgumentException naming the setting when its value is not a 64-bit integer */
    public long longValue(Setting s) {
        return Constraint.Type.WHOLE.parse(s, values.get(s)).longValue();
    }

    /**
     * The constant of {@code type} that a choice setting names: its value upper-cased with dashes as
     * underscores ({@code dry-run} → {@code DRY_RUN}).
     *
     * @throws IllegalArgumentException when {@code type} has no such constant
     */
    public <E extends Enum<E>> E choice(Setting s, Class<E> type) {
        return Enum.valueOf(type, values.get(s).trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    }

    /** The items of a list setting: its value split at commas, trimmed, blanks left out. */
    public List<String> list(Setting s) {
        return items(values.get(s));
    }

    static List<String> items(String value) {
        return java.util.Arrays.stream(value.split(",")).map(String::trim).filter(item -> !item.isEmpty()).toList();
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
