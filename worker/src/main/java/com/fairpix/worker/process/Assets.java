package com.fairpix.worker.process;

/**
 * Reads the extra images a job refers to (watermarks) from the tenant's storage. The worker's
 * implementation goes through {@code ResultWriter}, which refuses keys outside the tenant's prefix.
 */
@FunctionalInterface
public interface Assets {
    /**
     * @return the object's bytes
     * @throws com.fairpix.core.error.Permanent {@code forbidden-key} or {@code asset-not-found}
     */
    byte[] read(String key);

    /** For jobs that must not read anything besides their source. */
    Assets NONE = key -> {
        throw new com.fairpix.core.error.Permanent("asset-not-found", "no asset store: cannot read " + key);
    };
}
