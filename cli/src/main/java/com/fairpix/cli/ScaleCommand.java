package com.fairpix.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "scale", mixinStandardHelpOptions = true,
        description = "See and steer the autoscaler (its admin API /admin/v1/pools).",
        subcommands = {ScaleCommand.Status.class, ScaleCommand.Set.class, ScaleCommand.Pause.class, ScaleCommand.Resume.class, ScaleCommand.Policy.class})
final class ScaleCommand {

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Per pool: mode, desired/actual replicas, signals, last decision.")
    static final class Status implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin AutoscalerOptions options;

        @Parameters(paramLabel = "POOL", arity = "0..1", description = "one pool (default: all)")
        String pool;

        @Option(names = "--decisions", defaultValue = "0", description = "also list the last N decisions of each pool")
        int decisions;

        @Override
        public Integer call() throws Exception {
            ApiClient api = options.client();
            JsonNode all = pool == null ? api.get("/admin/v1/pools") : null;
            Iterable<JsonNode> pools = pool == null ? all.get("pools") : java.util.List.of(api.get("/admin/v1/pools/" + pool));
            PrintWriter out = spec.commandLine().getOut();
            if (options.json()) {
                if (decisions > 0) {
                    for (JsonNode p : pools) ((com.fasterxml.jackson.databind.node.ObjectNode) p)
                            .set("decisions", api.get("/admin/v1/pools/" + p.get("pool").asText() + "/decisions?limit=" + decisions).get("decisions"));
                }
                ClientOptions.printJson(out, pool == null ? all : pools.iterator().next());
            } else {
                out.printf("%-5s %-7s %-10s %7s %6s %8s %8s %9s %-20s %s%n", "POOL", "MODE", "ACTUATOR", "DESIRED", "ACTUAL", "QPS", "LAG", "LAG/S", "REASON", "DETAIL");
                for (JsonNode p : pools) {
                    out.printf("%-5s %-7s %-10s %7s %6s %8.1f %8d %9.1f %-20s %s%n", p.get("pool").asText(), p.get("mode").asText(), p.get("actuator").asText(),
                            p.path("desired").asText("-"), p.path("actual").asText("-"), p.at("/signals/qps").asDouble(), p.at("/signals/lag").asLong(),
                            p.at("/signals/lagGrowthPerSecond").asDouble(), p.at("/lastDecision/reason").asText("-"), p.at("/lastDecision/detail").asText(""));
                    if (p.has("actuatorError")) out.println("      actuator error: " + p.get("actuatorError").asText());
                    if (p.at("/signals/ok").isBoolean() && !p.at("/signals/ok").asBoolean()) out.println("      last reading failed: " + p.at("/signals/error").asText());
                    if (decisions > 0) {
                        for (JsonNode d : api.get("/admin/v1/pools/" + p.get("pool").asText() + "/decisions?limit=" + decisions).get("decisions")) {
                            out.printf("      %s %-20s %s->%s rec=%s lag=%d qps=%.1f: %s%n", d.get("at").asText(), d.get("reason").asText(), d.get("current").asText(),
                                    d.get("desired").asText(), d.path("recommendation").asText("-"), d.at("/inputs/lag").asLong(), d.at("/inputs/qps").asDouble(),
                                    d.get("detail").asText());
                        }
                    }
                }
            }
            out.flush();
            return Fairpix.OK;
        }
    }

    @Command(name = "set", mixinStandardHelpOptions = true, description = "Pin a pool to N replicas (manual override) until 'fairpix scale resume'.")
    static final class Set implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin AutoscalerOptions options;
        @Parameters(index = "0", paramLabel = "POOL", description = "cpu or gpu") String pool;
        @Parameters(index = "1", paramLabel = "REPLICAS", description = "replicas to hold, within the policy's min/max") int replicas;

        @Override
        public Integer call() throws Exception {
            JsonNode s = options.client().sendJson("PUT", "/admin/v1/pools/" + pool + "/replicas", Map.of("replicas", replicas));
            return printMode(spec, options, s);
        }
    }

    @Command(name = "pause", mixinStandardHelpOptions = true, description = "Hold a pool at its current size; decisions are still logged.")
    static final class Pause implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin AutoscalerOptions options;
        @Parameters(paramLabel = "POOL", description = "cpu or gpu") String pool;

        @Override
        public Integer call() throws Exception {
            return printMode(spec, options, options.client().sendJson("POST", "/admin/v1/pools/" + pool + "/pause", null));
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true, description = "Hand a paused or manually set pool back to the policy.")
    static final class Resume implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin AutoscalerOptions options;
        @Parameters(paramLabel = "POOL", description = "cpu or gpu") String pool;

        @Override
        public Integer call() throws Exception {
            return printMode(spec, options, options.client().sendJson("POST", "/admin/v1/pools/" + pool + "/resume", null));
        }
    }

    @Command(name = "policy", mixinStandardHelpOptions = true,
            description = {"Show a pool's scaling policy, or change members of it live: fairpix scale policy cpu --set maxReplicas=12 --set stabilizationSeconds=120"})
    static final class Policy implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin AutoscalerOptions options;
        @Parameters(paramLabel = "POOL", description = "cpu or gpu") String pool;

        @Option(names = "--set", paramLabel = "MEMBER=NUMBER", description = "a policy member to change (repeatable)")
        Map<String, String> changes;

        @Override
        public Integer call() throws Exception {
            ApiClient api = options.client();
            JsonNode policy;
            if (changes == null || changes.isEmpty()) {
                policy = api.get("/admin/v1/pools/" + pool + "/policy");
            } else {
                Map<String, Object> body = new LinkedHashMap<>();
                for (var e : changes.entrySet()) {
                    try {
                        body.put(e.getKey(), new java.math.BigDecimal(e.getValue()));
                    } catch (NumberFormatException ex) {
                        throw new IllegalArgumentException("--set " + e.getKey() + " needs a number, got '" + e.getValue() + "'");
                    }
                }
                policy = api.sendJson("PATCH", "/admin/v1/pools/" + pool + "/policy", body);
            }
            return ClientOptions.print(spec, options.json(), policy, out -> {
                policy.fields().forEachRemaining(f -> out.printf("%-24s %s%n", f.getKey(), f.getValue().asText()));
            });
        }
    }

    private static int printMode(CommandSpec spec, AutoscalerOptions options, JsonNode s) throws Exception {
        return ClientOptions.print(spec, options.json(), s, out -> out.printf("pool %s: mode %s%s, actual %s%n", s.get("pool").asText(), s.get("mode").asText(),
                s.has("manualReplicas") ? " (" + s.get("manualReplicas").asText() + " replicas)" : "", s.path("actual").asText("-")));
    }
}
