package com.fairpix.cli;

import com.fairpix.core.json.Json;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "tenants", mixinStandardHelpOptions = true,
        description = {"Manage tenants through the admin API (--url / FAIRPIX_URL, --admin-token / FAIRPIX_ADMIN_TOKEN).",
                "Lifecycle: CREATING -> ACTIVE <-> SUSPENDED -> DELETED. Changes reach every node within a second."},
        subcommands = {TenantsCommand.Create.class, TenantsCommand.ListTenants.class, TenantsCommand.Get.class,
                TenantsCommand.Set.class, TenantsCommand.Suspend.class, TenantsCommand.Activate.class,
                TenantsCommand.Delete.class, TenantsCommand.Keys.class})
final class TenantsCommand {

    /** The limits `create` and `set` take, one kebab-case flag per tenant field. */
    static final class Limits {
        @Option(names = "--weight", description = "fair-share weight in the workers' scheduler (> 0)")
        Double weight;

        @Option(names = "--rate", description = "token-bucket refill rate, tokens/s")
        Double rate;

        @Option(names = "--burst", description = "token-bucket size, tokens")
        Double burst;

        @Option(names = "--daily-quota", description = "jobs per UTC day")
        Long dailyQuota;

        @Option(names = "--max-concurrent-jobs", description = "jobs QUEUED + RUNNING at once")
        Integer maxConcurrentJobs;

        @Option(names = "--max-upload-bytes", description = "largest upload, bytes")
        Long maxUploadBytes;

        @Option(names = "--max-pixels", description = "largest image, width x height pixels")
        Long maxPixels;

        @Option(names = "--allowed-formats", split = ",", description = "comma-separated subset of jpeg,png,webp")
        List<String> allowedFormats;

        @Option(names = "--webhook-url", description = "where job completion notifications go")
        String webhookUrl;

        @Option(names = "--pool", description = "default worker pool: cpu or gpu")
        String pool;

        Map<String, Object> asPatch() {
            Map<String, Object> m = new LinkedHashMap<>();
            if (weight != null) m.put("weight", weight);
            if (rate != null) m.put("rate", rate);
            if (burst != null) m.put("burst", burst);
            if (dailyQuota != null) m.put("dailyQuota", dailyQuota);
            if (maxConcurrentJobs != null) m.put("maxConcurrentJobs", maxConcurrentJobs);
            if (maxUploadBytes != null) m.put("maxUploadBytes", maxUploadBytes);
            if (maxPixels != null) m.put("maxPixels", maxPixels);
            if (allowedFormats != null) m.put("allowedFormats", allowedFormats);
            if (webhookUrl != null) m.put("webhookUrl", webhookUrl);
            if (pool != null) m.put("pool", pool);
            return m;
        }
    }

    static final String ROW = "%-24s %-10s %7s %8s %8s %11s %9s %12s %11s %-14s %-5s%n";

    static void printHeader(PrintWriter out) {
        out.printf(ROW, "ID", "STATE", "WEIGHT", "RATE/S", "BURST", "DAILY", "MAX-CONC", "MAX-UPLOAD", "MAX-PIXELS", "FORMATS", "POOL");
    }

    static void printRow(PrintWriter out, JsonNode t) {
        List<String> formats = new java.util.ArrayList<>();
        t.path("allowedFormats").forEach(f -> formats.add(f.asText()));
        java.util.Collections.sort(formats);
        out.printf(ROW, t.path("id").asText(), t.path("state").asText(), t.path("weight").asText(), t.path("rate").asText(),
                t.path("burst").asText(), t.path("dailyQuota").asText(), t.path("maxConcurrentJobs").asText(),
                t.path("maxUploadBytes").asText(), t.path("maxPixels").asText(), String.join(",", formats), t.path("pool").asText());
    }

    /** Prints one tenant as a table or JSON. */
    abstract static class TenantCommand implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin AdminOptions admin;

        abstract JsonNode run(ApiClient api) throws Exception;

        @Override
        public Integer call() throws Exception {
            JsonNode tenant = run(admin.api());
            return ClientOptions.print(spec, admin.json(), tenant, out -> {
                printHeader(out);
                printRow(out, tenant);
                if (tenant.hasNonNull("webhookUrl")) out.println("webhook  " + tenant.get("webhookUrl").asText());
                out.println("version  " + tenant.path("version").asText());
            });
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Create a tenant and print its API key (shown once: store it now). With --output json: {tenant, apiKey}.")
    static final class Create implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin AdminOptions admin;
        @ArgGroup(exclusive = false, heading = "Limits (defaults apply to those not given):%n") Limits limits = new Limits();

        @Parameters(paramLabel = "ID", description = "tenant id: [a-z0-9][a-z0-9-]{1,62}")
        String id;

        @Override
        public Integer call() throws Exception {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("id", id);
            body.putAll(limits.asPatch());
            ApiClient api = admin.api();
            JsonNode created = api.postJson("/admin/v1/tenants", body);
            warnIfOvercommitted(spec, api, created.path("tenant").path("pool").asText("cpu"), created.path("tenant").path("rate").asDouble(), 0);
            return ClientOptions.print(spec, admin.json(), created, out -> {
                printHeader(out);
                printRow(out, created.get("tenant"));
                out.println("apiKey   " + created.get("apiKey").asText());
                out.println("(the key is shown once; store it now)");
            });
        }
    }

    /**
     * After a change of guarantees: a warning on stderr when the pool's guarantees would add up to
     * more than what it does (the measured capacity, or a pinned one: {@code guaranteeCapacity} in
     * the status), so admission will share them (by demand, or scaled, as {@code guaranteeSharing} says): the status's sum of active tenants' guarantees,
     * less this tenant's previous rate ({@code previousRate}, 0 for a new tenant; the sum may hold
     * it if the tenant is active), plus its new rate. Best effort: no warning when the status cannot
     * be read or nothing measured yet.
     *
     * @param rate         the created or changed tenant's guaranteed rate, tokens/s
     * @param previousRate its rate before the change, tokens/s (0 for a new tenant)
     */
    static void warnIfOvercommitted(CommandSpec spec, ApiClient api, String pool, double rate, double previousRate) {
        try {
            JsonNode c = api.get("/admin/v1/status").path("capacity").path(pool);
            double capacity = c.path("guaranteeCapacity").asDouble();
            double active = c.path("guarantees").asDouble();
            double guarantees = Math.max(rate, active - previousRate + rate);
            if (capacity > 0 && guarantees > capacity) {
                // What admission then does depends on admission.guarantee-sharing (docs/admission.md).
                String then = "proportional".equals(c.path("guaranteeSharing").asText())
                        ? String.format(java.util.Locale.ROOT, "while they are active, admission scales every guarantee by %.3f", capacity / guarantees)
                        : "while they all ask for more than their shares, admission shares the pool by demand (weighted max-min: "
                                + "a tenant asking less than its share keeps all it asks, the others share the rest)";
                spec.commandLine().getErr().printf(java.util.Locale.ROOT,
                        "warning: pool %s's guarantees would add up to %.1f tokens/s (active tenants' %.1f, this tenant's rate %.1f -> %.1f), "
                                + "more than it does (%.1f cost units/s): overcommit %.2fx; %s%n",
                        pool, guarantees, active, previousRate, rate, capacity, guarantees / capacity, then);
                spec.commandLine().getErr().flush();
            }
        } catch (Exception e) {
            // the status is advice here, not part of the command
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List tenants in id order, a page at a time.")
    static final class ListTenants implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin AdminOptions admin;

        @Option(names = "--limit", defaultValue = "100", description = "tenants per page, 1-1000 (default ${DEFAULT-VALUE})")
        int limit;

        @Option(names = "--cursor", description = "start after this tenant id (a previous page's nextCursor)")
        String cursor;

        @Option(names = "--all", description = "follow the cursor to the end")
        boolean all;

        @Override
        public Integer call() throws Exception {
            ApiClient api = admin.api();
            PrintWriter out = spec.commandLine().getOut();
            var collected = Json.mapper().createArrayNode();
            String next = cursor;
            String last;
            do {
                JsonNode page = api.get("/admin/v1/tenants?limit=" + limit + (next == null ? "" : "&cursor=" + URLEncoder.encode(next, StandardCharsets.UTF_8)));
                page.path("tenants").forEach(collected::add);
                last = page.path("nextCursor").isNull() ? null : page.path("nextCursor").asText(null);
                next = last;
            } while (all && next != null);
            if (admin.json()) {
                var body = Json.mapper().createObjectNode();
                body.set("tenants", collected);
                body.put("nextCursor", all ? null : last);
                ClientOptions.printJson(out, body);
            } else {
                printHeader(out);
                collected.forEach(t -> printRow(out, t));
                if (!all && last != null) out.println("more: --cursor " + last);
            }
            out.flush();
            return Fairpix.OK;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "Show one tenant.")
    static final class Get extends TenantCommand {
        @Parameters(paramLabel = "ID", description = "tenant id") String id;

        @Override
        JsonNode run(ApiClient api) throws Exception {
            return api.get("/admin/v1/tenants/" + id);
        }
    }

    @Command(name = "set", mixinStandardHelpOptions = true,
            description = "Change a tenant's limits; every ingest node and worker applies the change within a second.")
    static final class Set extends TenantCommand {
        @Parameters(paramLabel = "ID", description = "tenant id") String id;
        @ArgGroup(exclusive = false, multiplicity = "1", heading = "Limits to change (at least one):%n") Limits limits;

        @Override
        JsonNode run(ApiClient api) throws Exception {
            double previousRate = api.get("/admin/v1/tenants/" + id).path("rate").asDouble();
            JsonNode changed = api.patchJson("/admin/v1/tenants/" + id, limits.asPatch());
            warnIfOvercommitted(spec, api, changed.path("pool").asText("cpu"), changed.path("rate").asDouble(), previousRate);
            return changed;
        }
    }

    @Command(name = "suspend", mixinStandardHelpOptions = true,
            description = "Suspend a tenant: its requests get 403; its queued jobs are held (not run, not dropped) until activated.")
    static final class Suspend extends TenantCommand {
        @Parameters(paramLabel = "ID", description = "tenant id") String id;

        @Override
        JsonNode run(ApiClient api) throws Exception {
            return api.postJson("/admin/v1/tenants/" + id + "/suspend", Map.of());
        }
    }

    @Command(name = "activate", mixinStandardHelpOptions = true, description = "Activate a suspended tenant; its held jobs run.")
    static final class Activate extends TenantCommand {
        @Parameters(paramLabel = "ID", description = "tenant id") String id;

        @Override
        JsonNode run(ApiClient api) throws Exception {
            return api.postJson("/admin/v1/tenants/" + id + "/activate", Map.of());
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true,
            description = "Delete a tenant: its keys are revoked (401 everywhere); its record stays as DELETED.")
    static final class Delete extends TenantCommand {
        @Parameters(paramLabel = "ID", description = "tenant id") String id;

        @Override
        JsonNode run(ApiClient api) throws Exception {
            return api.delete("/admin/v1/tenants/" + id);
        }
    }

    @Command(name = "keys", mixinStandardHelpOptions = true, description = "A tenant's API keys: several may be active at once, for rotation.",
            subcommands = {Keys.CreateKey.class, Keys.ListKeys.class, Keys.Revoke.class})
    static final class Keys {

        @Command(name = "create", mixinStandardHelpOptions = true, description = "Create another key (shown once).")
        static final class CreateKey implements Callable<Integer> {
            @Spec CommandSpec spec;
            @Mixin AdminOptions admin;
            @Parameters(paramLabel = "TENANT", description = "tenant id") String tenant;

            @Override
            public Integer call() throws Exception {
                JsonNode created = admin.api().postJson("/admin/v1/tenants/" + tenant + "/keys", Map.of());
                return ClientOptions.print(spec, admin.json(), created, out -> out.printf("keyId    %s%napiKey   %s%n(the key is shown once; store it now)%n", created.get("keyId").asText(), created.get("apiKey").asText()));
            }
        }

        @Command(name = "list", mixinStandardHelpOptions = true, description = "List key ids and creation times (never the keys).")
        static final class ListKeys implements Callable<Integer> {
            @Spec CommandSpec spec;
            @Mixin AdminOptions admin;
            @Parameters(paramLabel = "TENANT", description = "tenant id") String tenant;

            @Override
            public Integer call() throws Exception {
                JsonNode keys = admin.api().get("/admin/v1/tenants/" + tenant + "/keys");
                return ClientOptions.print(spec, admin.json(), keys, out -> {
                    out.printf("%-22s %s%n", "KEY-ID", "CREATED");
                    keys.path("keys").forEach(k -> out.printf("%-22s %s%n", k.path("keyId").asText(), k.path("createdAt").asText()));
                });
            }
        }

        @Command(name = "revoke", mixinStandardHelpOptions = true, description = "Revoke a key by its id; it stops working everywhere within a second.")
        static final class Revoke implements Callable<Integer> {
            @Spec CommandSpec spec;
            @Mixin AdminOptions admin;
            @Parameters(index = "0", paramLabel = "TENANT", description = "tenant id") String tenant;
            @Parameters(index = "1", paramLabel = "KEY-ID", description = "the key's id, as listed by 'keys list' (key_...)") String keyId;

            @Override
            public Integer call() throws Exception {
                admin.api().delete("/admin/v1/tenants/" + tenant + "/keys/" + keyId);
                PrintWriter out = spec.commandLine().getOut();
                if (admin.json()) out.println("{\"revoked\": \"" + keyId + "\"}");
                else out.println("revoked " + keyId);
                out.flush();
                return Fairpix.OK;
            }
        }
    }
}
