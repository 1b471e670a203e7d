package com.fairpix.core.tenant;

import com.fairpix.core.image.ImageFormat;
import com.fairpix.core.pool.Pool;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A tenant and its limits.
 *
 * @param id                 {@code [a-z0-9][a-z0-9-]{1,62}}
 * @param weight             fair-share weight in the worker's scheduler (> 0)
 * @param rate               token-bucket refill rate, tokens/s
 * @param burst              token-bucket size, tokens
 * @param dailyQuota         jobs per UTC day
 * @param maxConcurrentJobs  jobs QUEUED+RUNNING at once
 * @param maxUploadBytes     largest original accepted, bytes
 * @param maxPixels          largest original accepted, width × height pixels
 * @param allowedFormats     input formats accepted: a subset of {@link #FORMATS} (every {@link ImageFormat#id()})
 * @param pool               default worker pool: cpu or gpu
 * @param version            incremented by every change
 */
public record Tenant(
        String id,
        TenantState state,
        double weight,
        double rate,
        double burst,
        long dailyQuota,
        int maxConcurrentJobs,
        long maxUploadBytes,
        long maxPixels,
        Set<String> allowedFormats,
        String webhookUrl,
        String webhookSecret,
        String pool,
        long version) {

    public static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9-]{1,62}");
    /** Every input format fairpix reads; the default {@code allowedFormats}. */
    public static final Set<String> FORMATS = Set.copyOf(ImageFormat.IDS);

    public Tenant {
        // Share the common format sets: with 10,000 tenants cached per node, copies add up.
        if (allowedFormats != null) {
            Set<String> copy = Set.copyOf(allowedFormats);
            allowedFormats = copy.equals(FORMATS) ? FORMATS : copy;
        }
        if (pool != null) pool = pool.intern();
    }

    /** A new ACTIVE tenant with the platform defaults. */
    public static Tenant withDefaults(String id) {
        return new Tenant(id, TenantState.ACTIVE, 1.0, 10.0, 20.0, 100_000, 100,
                25L * 1024 * 1024, 50_000_000L, FORMATS, null, null, Pool.CPU.wire(), 1);
    }

    /** Every problem with this tenant's values; empty when valid. */
    public List<String> problems() {
        var problems = new java.util.ArrayList<String>();
        if (id == null || !ID.matcher(id).matches()) problems.add("id must match [a-z0-9][a-z0-9-]{1,62}");
        if (!(weight > 0)) problems.add("weight must be > 0");
        if (!(rate > 0)) problems.add("rate must be > 0 tokens/s");
        if (!(burst >= 1)) problems.add("burst must be >= 1 token");
        if (dailyQuota < 0) problems.add("dailyQuota must be >= 0");
        if (maxConcurrentJobs < 1) problems.add("maxConcurrentJobs must be >= 1");
        if (maxUploadBytes < 1) problems.add("maxUploadBytes must be >= 1");
        if (maxPixels < 1) problems.add("maxPixels must be >= 1");
        if (allowedFormats == null || allowedFormats.isEmpty() || !FORMATS.containsAll(allowedFormats)) problems.add("allowedFormats must be a non-empty subset of " + FORMATS);
        if (Pool.find(pool).isEmpty()) problems.add(Pool.MUST_BE);
        return problems;
    }

    public Tenant withState(TenantState newState) {
        return new Tenant(id, newState, weight, rate, burst, dailyQuota, maxConcurrentJobs, maxUploadBytes,
                maxPixels, allowedFormats, webhookUrl, webhookSecret, pool, version + 1);
    }

    /** This tenant with a new webhook signing secret and the version incremented. */
    public Tenant withWebhookSecret(String secret) {
        return new Tenant(id, state, weight, rate, burst, dailyQuota, maxConcurrentJobs, maxUploadBytes,
                maxPixels, allowedFormats, webhookUrl, secret, pool, version + 1);
    }

    /** The members an operator may change (PATCH, {@code fairpix tenants set}). */
    public static final Set<String> SETTABLE = Set.of("weight", "rate", "burst", "dailyQuota", "maxConcurrentJobs",
            "maxUploadBytes", "maxPixels", "allowedFormats", "webhookUrl", "pool");

    /**
     * This tenant with {@code patch}'s members applied (JSON merge patch, RFC 7396, over
     * {@link #SETTABLE} members only) and the version incremented.
     *
     * @throws IllegalArgumentException listing every problem (unknown member, bad value)
     */
    public Tenant patched(com.fasterxml.jackson.databind.JsonNode patch) {
        var mapper = com.fairpix.core.json.Json.mapper();
        com.fasterxml.jackson.databind.node.ObjectNode merged = mapper.valueToTree(this);
        List<String> errors = new java.util.ArrayList<>();
        patch.fieldNames().forEachRemaining(f -> {
            if (!SETTABLE.contains(f)) errors.add("unknown or read-only member '" + f + "'");
            else merged.set(f, patch.get(f));
        });
        merged.put("version", version + 1);
        Tenant out = null;
        if (errors.isEmpty()) {
            try {
                out = mapper.treeToValue(merged, Tenant.class);
                errors.addAll(out.problems());
            } catch (Exception e) {
                errors.add("bad value: " + e.getMessage().lines().findFirst().orElse(""));
            }
        }
        if (!errors.isEmpty()) throw new InvalidTenantException(errors);
        return out;
    }

    /** A tenant value that breaks the rules; {@link #errors()} lists every problem. */
    public static final class InvalidTenantException extends IllegalArgumentException {
        private final List<String> errors;

        public InvalidTenantException(List<String> errors) {
            super(String.join("; ", errors));
            this.errors = List.copyOf(errors);
        }

        public List<String> errors() {
            return errors;
        }
    }
}
