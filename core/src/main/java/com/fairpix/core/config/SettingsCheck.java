package com.fairpix.core.config;

/**
 * A check of settings that config cannot make itself: a value only another module can parse (the
 * webhooks' retry schedule and allow list), or a rule across settings that a module's config record
 * holds (see {@link Setting} for which rule lives where). Run by every {@link FairpixConfig#load}
 * once each setting has passed its {@link Constraint}. The implementations are listed in their
 * module's {@code META-INF/services/com.fairpix.core.config.SettingsCheck} and found with
 * {@link java.util.ServiceLoader}: config knows none of those modules, they know it, and every
 * process with a module on its class path refuses that module's bad values at load.
 */
public interface SettingsCheck {
    /** @throws IllegalArgumentException naming the setting whose value is refused */
    void check(FairpixConfig config);
}
