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
        description = "Live view of the farm's scaling: per pool replicas desired/actual, QPS, lag, lag rate; the top tenants by backlog. Ctrl-C quits.")
final class TopCommand implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin AutoscalerOptions options;

    @Option(names = "--once", description = "print one frame and exit (no screen clearing)")
    boolean once;

    @Option(names = "--refresh", defaultValue = "2", description = "seconds between frames (default ${DEFAULT-VALUE})")
    int refresh;

    @Override
    public Integer call() throws Exception {
        ApiClient api = options.client();
        PrintWriter out = spec.commandLine().getOut();
        while (true) {
            JsonNode all = api.get("/admin/v1/pools");
            if (options.json()) {
                ClientOptions.printJson(out, all);
            } else {
                if (!once) out.print("\033[H\033[2J"); // home + clear: redraw in place
                frame(out, all);
            }
            out.flush();
            if (once) return Fairpix.OK;
            Thread.sleep(Math.max(1, refresh) * 1000L);
        }
    }

    static void frame(PrintWriter out, JsonNode all) {
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
    }
}
