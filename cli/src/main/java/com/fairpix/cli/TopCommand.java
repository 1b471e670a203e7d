package com.fairpix.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "top", mixinStandardHelpOptions = true,
        description = "Live view of the farm's scaling: per pool replicas desired/actual, QPS, lag, lag rate; the top tenants by backlog; the top tenants by demand with their effective guarantees (from the ingest API's status). Ctrl-C quits.")
final class TopCommand implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin AutoscalerOptions options;

    @Option(names = "--once", description = "print one frame and exit (no screen clearing)")
    boolean once;

    @Option(names = "--ingest-url", description = "ingest-api base URL, for the tenants' demand and guarantees (FAIRPIX_URL, cli.url; default http://127.0.0.1:8080)")
    String ingestUrl;

    @Option(names = "--refresh", defaultValue = "2", description = "seconds between frames (default ${DEFAULT-VALUE})")
    int refresh;

    @Override
    public Integer call() throws Exception {
        ApiClient api = options.client();
        PrintWriter out = spec.commandLine().getOut();
        while (true) {
            JsonNode all = api.get("/admin/v1/pools");
            JsonNode status = ingestStatus();
            if (options.json()) {
                ClientOptions.printJson(out, json(all, status));
            } else {
                if (!once) out.print("\033[H\033[2J"); // home + clear: redraw in place
                frame(out, all, status);
            }
            out.flush();
            if (once) return Fairpix.OK;
            Thread.sleep(Math.max(1, refresh) * 1000L);
        }
    }

    /** The ingest API's {@code /admin/v1/status}, or null when it does not answer (the frame then says so). */
    private JsonNode ingestStatus() {
        try {
            return options.ingest(ingestUrl).get("/admin/v1/status");
        } catch (Exception e) {
            return null;
        }
    }

    /**
     * What {@code -o json} prints: the autoscaler's {@code /admin/v1/pools} object as it is, plus
     * {@code admission}: per pool, the tenants asking most and their guarantees (the ingest status's
     * {@code capacity}), or null when the ingest API did not answer, as the text frame shows both.
     */
    static JsonNode json(JsonNode all, JsonNode status) {
        com.fasterxml.jackson.databind.node.ObjectNode out = all.deepCopy();
        out.set("admission", status == null ? com.fasterxml.jackson.databind.node.NullNode.getInstance() : status.path("capacity"));
        return out;
    }

    static void frame(PrintWriter out, JsonNode all) {
        frame(out, all, null);
    }

    /**
     * One frame: the autoscaler's pools and, from the ingest's {@code status} (null: not reachable),
     * each pool's tenants asking most with the guarantee admission gives them now (issue 31).
     */
    static void frame(PrintWriter out, JsonNode all, JsonNode status) {
        out.printf("fairpix top — %s — actuator %s%n%n", LocalTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss")), all.path("actuator").asText());
        out.printf("%-5s %-7s %8s %7s %9s %9s %9s %11s  %s%n", "POOL", "MODE", "REPLICAS", "DESIRED", "QPS", "LAG", "LAG/S", "PARTS(LAG)", "LAST DECISION");
        for (JsonNode p : all.get("pools")) {
            out.printf("%-5s %-7s %8s %7s %9.1f %9d %9.1f %11s  %s%n", p.get("pool").asText(), p.get("mode").asText(), p.path("actual").asText("-"),
                    p.path("desired").asText("-"), p.at("/signals/qps").asDouble(), p.at("/signals/lag").asLong(), p.at("/signals/lagGrowthPerSecond").asDouble(),
                    p.at("/signals/partitions").asInt() + "(" + p.at("/signals/partitionsWithLag").asInt() + ")",
                    p.at("/lastDecision/reason").asText("-"));
        }
        out.println();
        out.printf("%-5s %-40s %9s%n", "POOL", "TOP TENANTS BY BACKLOG", "BACKLOG");
        for (JsonNode p : all.get("pools")) {
            for (JsonNode t : p.at("/signals/topTenants")) {
                out.printf("%-5s %-40s %9d%n", p.get("pool").asText(), t.get("tenant").asText(), t.get("backlog").asLong());
            }
        }
        out.println();
        if (status == null) {
            out.println("TOP TENANTS BY DEMAND: - (the ingest API did not answer: --ingest-url or FAIRPIX_URL)");
            return;
        }
        // OVER: asking more than its guarantee, its uploads served at background CPU priority.
        out.printf("%-5s %-40s %12s %12s %10s %-4s  %s%n", "POOL", "TOP TENANTS BY DEMAND", "DEMAND(t/s)", "GUARANTEE", "RATE", "OVER", "SHARING");
        for (var it = status.path("capacity").fields(); it.hasNext(); ) {
            var e = it.next();
            JsonNode c = e.getValue();
            String sharing = String.format(java.util.Locale.ROOT, "%s, level %.3f", c.path("guaranteeSharing").asText("-"), c.path("guaranteeScale").asDouble(1));
            for (JsonNode t : c.path("tenants")) {
                out.printf(java.util.Locale.ROOT, "%-5s %-40s %12.2f %12.2f %10.1f %-4s  %s%n", e.getKey(), t.path("tenant").asText(), t.path("demand").asDouble(),
                        t.path("guarantee").asDouble(), t.path("rate").asDouble(), t.path("overShare").asBoolean() ? "yes" : "-", sharing);
            }
        }
    }
}
