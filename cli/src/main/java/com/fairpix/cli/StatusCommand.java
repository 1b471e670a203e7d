package com.fairpix.cli;

import com.fairpix.core.json.Json;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Overload state of the farm: each ingest node's circuit breakers (kafka, s3, redis), ramp level and shedding level per pool, and each pool's measured capacity.")
public final class StatusCommand implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin AdminOptions options;

    @Override
    public Integer call() throws Exception {
        JsonNode status = options.api().get("/admin/v1/status");
        PrintWriter out = spec.commandLine().getOut();
        if (options.json()) {
            out.println(Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(status));
        } else {
            print(out, status);
        }
        out.flush();
        return Fairpix.OK;
    }

    /** Prints {@code GET /admin/v1/status} as tables. */
    public static void print(PrintWriter out, JsonNode status) {
        JsonNode farm = status.path("farm");
        out.printf("farm view of %s: breakers %s, ramp %.1f %%, shedding %s%n%n", status.path("node").asText(),
                join(farm.path("breakers")), farm.path("rampLevel").asDouble() * 100, join(farm.path("shedding")));
        out.printf("%-28s %-10s %-10s %-10s %7s %-16s %s%n", "NODE", "KAFKA", "S3", "REDIS", "RAMP", "SHEDDING", "BACKLOG(s)");
        for (JsonNode n : status.path("nodes")) {
            JsonNode b = n.path("breakers");
            out.printf("%-28s %-10s %-10s %-10s %6.1f%% %-16s %s%n", n.path("node").asText(), b.path("kafka").asText("-"), b.path("s3").asText("-"),
                    b.path("redis").asText("-"), n.path("rampLevel").asDouble() * 100, join(n.path("shedding")), join(n.path("backlogSeconds")));
        }
        JsonNode capacity = status.path("capacity");
        if (!capacity.isMissingNode()) {
            out.printf("%n%-6s %-34s %-22s %s%n", "POOL", "MEASURED CAPACITY (cost units/s)", "ADMITS (tokens/s)", "GUARANTEES (tokens/s, active tenants)");
            for (Iterator<Map.Entry<String, JsonNode>> it = capacity.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode c = e.getValue();
                String figure = c.path("replicas").asInt() == 0
                        ? c.path("guaranteeCapacity").asDouble() > 0 ? "- (no live replica now)" : "- (no worker measured yet)"
                        : String.format(java.util.Locale.ROOT, "%.1f from %d replica%s", c.path("costPerSecond").asDouble(), c.path("replicas").asInt(),
                                c.path("replicas").asInt() == 1 ? "" : "s");
                String admits = c.path("admissionCapacity").asDouble() > 0
                        ? String.format(java.util.Locale.ROOT, "%.1f", c.path("admissionCapacity").asDouble()) : "- (no capacity known)";
                JsonNode over = c.path("overcommit");
                double scale = c.path("guaranteeScale").asDouble(1);
                String guaranteed = c.path("guarantees").isNumber()
                        ? String.format(java.util.Locale.ROOT, "%.1f from %d tenant%s%s%s", c.path("guarantees").asDouble(), c.path("activeTenants").asInt(),
                                c.path("activeTenants").asInt() == 1 ? "" : "s",
                                over.isNumber() ? String.format(java.util.Locale.ROOT, " (overcommit %.2fx%s)", over.asDouble(), over.asDouble() > 1 ? ": guarantees exceed capacity" : "") : "",
                                scale < 1 ? String.format(java.util.Locale.ROOT, ", each scaled x%.3f", scale) : "")
                        : "-";
                out.printf("%-6s %-34s %-22s %s%n", e.getKey(), figure, admits, guaranteed);
            }
            // Issue 31: the tenants asking most in each pool, and the guarantee each is given now.
            boolean header = false;
            for (Iterator<Map.Entry<String, JsonNode>> it = capacity.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                for (JsonNode t : e.getValue().path("tenants")) {
                    if (!header) {
                        out.printf("%n%-6s %-40s %12s %12s %10s %-4s  %s%n", "POOL", "TENANT (most demand first)", "DEMAND(t/s)", "GUARANTEE", "RATE", "OVER", "SHARING");
                        header = true;
                    }
                    out.printf(java.util.Locale.ROOT, "%-6s %-40s %12.2f %12.2f %10.1f %-4s  %s, level %.3f%n", e.getKey(), t.path("tenant").asText(),
                            t.path("demand").asDouble(), t.path("guarantee").asDouble(), t.path("rate").asDouble(), t.path("overShare").asBoolean() ? "yes" : "-",
                            e.getValue().path("guaranteeSharing").asText("-"), e.getValue().path("guaranteeScale").asDouble(1));
                }
            }
        }
    }

    private static String join(JsonNode object) {
        StringBuilder sb = new StringBuilder();
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!sb.isEmpty()) sb.append(',');
            JsonNode v = e.getValue();
            sb.append(e.getKey()).append('=').append(v.isNumber() && !v.isIntegralNumber() ? String.valueOf(Math.round(v.asDouble())) : v.asText());
        }
        return sb.isEmpty() ? "-" : sb.toString();
    }
}
