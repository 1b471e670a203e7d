package com.fairpix.cli;

import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fairpix usage}: every tenant's measured usage per UTC day, from the admin API
 * ({@code GET /admin/v1/usage}); CSV for billing systems (docs/usage.md).
 */
@Command(name = "usage", mixinStandardHelpOptions = true,
        description = {"Measured usage per tenant per UTC day (every tenant, or one): jobs, CPU, bytes in and out, output pixels.",
                "csv and json stream one row per tenant-day as the API sends it; text sums the window per tenant."})
final class UsageCommand implements Callable<Integer> {
    enum Output { text, json, csv }

    @Spec CommandSpec spec;

    @Option(names = "--url", description = "ingest-api base URL (FAIRPIX_URL, cli.url; default http://127.0.0.1:8080)")
    String url;

    @Option(names = "--admin-token", description = "admin token (FAIRPIX_ADMIN_TOKEN)")
    String adminToken;

    @Option(names = "--tenant", description = "only this tenant")
    String tenant;

    @Option(names = "--from", description = "first UTC day, YYYY-MM-DD (default: the first day of --to's month)")
    String from;

    @Option(names = "--to", description = "last UTC day, YYYY-MM-DD, inclusive (default: today)")
    String to;

    @Option(names = {"-o", "--output"}, defaultValue = "text", description = "text, json or csv (default ${DEFAULT-VALUE})")
    Output output;

    @Override
    public Integer call() throws Exception {
        String token = ClientOptions.setting(adminToken, Setting.ADMIN_TOKEN);
        if (token == null) throw new IllegalArgumentException("an admin token is needed: --admin-token or FAIRPIX_ADMIN_TOKEN");
        ApiClient api = new ApiClient(ClientOptions.setting(url, Setting.URL), token);
        StringBuilder path = new StringBuilder("/admin/v1/usage?format=").append(output == Output.csv ? "csv" : "json");
        query(path, "from", from);
        query(path, "to", to);
        query(path, "tenant", tenant);
        PrintWriter out = spec.commandLine().getOut();
        if (output != Output.text) {
            // Streamed through: 10,000 tenants x a month is ~26 MB of CSV; as bytes onto standard output.
            if (out instanceof Fairpix.Stdout stdout) {
                stdout.flush();
                api.stream(path.toString(), stdout.bytes);
                stdout.bytes.flush();
            } else {
                api.stream(path.toString(), out);
            }
            if (output == Output.json) out.println();
            out.flush();
            return Fairpix.OK;
        }
        JsonNode export = Json.mapper().readTree(api.download(path.toString()));
        Map<String, long[]> byTenant = new TreeMap<>();
        for (JsonNode row : export.path("rows")) {
            long[] s = byTenant.computeIfAbsent(row.path("tenant").asText(), k -> new long[6]);
            s[0] += row.path("jobs").asLong();
            s[1] += row.path("failed").asLong();
            s[2] += row.path("cpuMillis").asLong();
            s[3] += row.path("bytesIn").asLong();
            s[4] += row.path("bytesOut").asLong();
            s[5] += row.path("outputPixels").asLong();
        }
        out.printf("usage %s .. %s (UTC days)%n", export.path("from").asText(), export.path("to").asText());
        out.printf("%-24s %8s %7s %12s %14s %14s %12s%n", "TENANT", "JOBS", "FAILED", "CPU-S", "BYTES-IN", "BYTES-OUT", "OUTPUT-MPX");
        byTenant.forEach((t, s) -> out.printf("%-24s %8d %7d %12.3f %14d %14d %12.3f%n", t, s[0], s[1], s[2] / 1000.0, s[3], s[4], s[5] / 1e6));
        if (byTenant.isEmpty()) out.println("(no finished jobs in the window)");
        out.flush();
        return Fairpix.OK;
    }

    private static void query(StringBuilder path, String name, String value) {
        if (value != null && !value.isBlank()) path.append('&').append(name).append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8));
    }
}
