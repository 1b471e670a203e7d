package com.fairpix.cli;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.webhooks.WebhookSignature;
import com.fairpix.webhooks.WebhooksService;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "webhooks", mixinStandardHelpOptions = true,
        description = {"Without a subcommand: run the webhook dispatcher (consumes fairpix.events, delivers signed job.succeeded / job.failed).",
                "Subcommands inspect and replay deliveries through the admin API, or run a test receiver."},
        subcommands = {WebhooksCommand.ListDeliveries.class, WebhooksCommand.Get.class, WebhooksCommand.Redeliver.class,
                WebhooksCommand.ReplayFailed.class, WebhooksCommand.RotateSecret.class, WebhooksCommand.Listen.class})
final class WebhooksCommand implements Callable<Integer> {
    @Mixin ServiceOptions service;

    @Option(names = "--port", description = "port for /metrics and /health (FAIRPIX_WEBHOOKS_PORT, default 8083)")
    Integer port;

    @Override
    public Integer call() {
        Map<Setting, String> more = new EnumMap<>(Setting.class);
        if (port != null) more.put(Setting.WEBHOOKS_PORT, port.toString());
        FairpixConfig config = service.config(more);
        WebhooksService dispatcher = WebhooksService.start(config, config.integer(Setting.WEBHOOKS_PORT));
        return Services.runUntilSignalled(() -> dispatcher.stop(Duration.ofSeconds(20)));
    }

    static final String ROW = "%-44s %-14s %-10s %8s  %-24s %s%n";

    static void printRow(PrintWriter out, JsonNode d) {
        JsonNode last = d.path("lastAttempt");
        String lastText = last.isMissingNode() ? "-" : last.path("at").asText() + " " + (last.hasNonNull("statusCode") ? last.get("statusCode").asText() : last.path("error").asText());
        out.printf(ROW, d.path("id").asText(), d.path("eventType").asText(), d.path("status").asText(), d.path("attempts").asText(), lastText, d.path("url").asText());
    }

    static void printHeader(PrintWriter out) {
        out.printf(ROW, "ID (webhook-id)", "EVENT", "STATUS", "ATTEMPTS", "LAST ATTEMPT", "URL");
    }

    static String path(String tenant) {
        return "/admin/v1/tenants/" + URLEncoder.encode(tenant, StandardCharsets.UTF_8) + "/webhooks";
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List a tenant's deliveries, newest first.")
    static final class ListDeliveries implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin AdminOptions admin;
        @Option(names = "--tenant", required = true, description = "tenant id") String tenant;
        @Option(names = "--limit", defaultValue = "50", description = "deliveries per page, 1-1000 (default ${DEFAULT-VALUE})") int limit;
        @Option(names = "--before", description = "a previous page's nextBefore (epoch ms)") Long before;

        @Override
        public Integer call() throws Exception {
            JsonNode page = admin.api().get(path(tenant) + "?limit=" + limit + (before == null ? "" : "&before=" + before));
            return ClientOptions.print(spec, admin.json(), page, out -> {
                printHeader(out);
                page.path("deliveries").forEach(d -> printRow(out, d));
                if (page.hasNonNull("nextBefore")) out.println("more: --before " + page.get("nextBefore").asText());
            });
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "Show one delivery with its payload and every attempt (never response bodies).")
    static final class Get implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin AdminOptions admin;
        @Option(names = "--tenant", required = true, description = "tenant id") String tenant;
        @Parameters(paramLabel = "ID", description = "delivery id (= webhook-id)") String id;

        @Override
        public Integer call() throws Exception {
            JsonNode d = admin.api().get(path(tenant) + "/" + URLEncoder.encode(id, StandardCharsets.UTF_8));
            return ClientOptions.print(spec, admin.json(), d, out -> {
                out.println("id       " + d.path("id").asText());
                out.println("event    " + d.path("eventType").asText() + " (job " + d.path("jobId").asText() + ")");
                out.println("url      " + d.path("url").asText());
                out.println("status   " + d.path("status").asText() + (d.hasNonNull("nextAttemptAt") ? ", next attempt " + d.get("nextAttemptAt").asText() : ""));
                out.println("payload  " + d.path("payload").asText());
                out.printf("%-32s %-7s %-28s %10s %s%n", "ATTEMPT AT", "STATUS", "ERROR", "MS", "MANUAL");
                d.path("attempts").forEach(a -> out.printf("%-32s %-7s %-28s %10s %s%n", a.path("at").asText(),
                        a.hasNonNull("statusCode") ? a.get("statusCode").asText() : "-", a.hasNonNull("error") ? a.get("error").asText() : "-",
                        a.path("durationMillis").asText(), a.path("manual").asBoolean() ? "yes" : ""));
            });
        }
    }

    @Command(name = "redeliver", mixinStandardHelpOptions = true,
            description = "Send a delivery again now: same webhook-id, fresh timestamp and signature; a new retry series.")
    static final class Redeliver implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin AdminOptions admin;
        @Option(names = "--tenant", required = true, description = "tenant id") String tenant;
        @Parameters(paramLabel = "ID", description = "delivery id (= webhook-id)") String id;

        @Override
        public Integer call() throws Exception {
            JsonNode d = admin.api().postJson(path(tenant) + "/" + URLEncoder.encode(id, StandardCharsets.UTF_8) + "/redeliver", Map.of());
            return ClientOptions.print(spec, admin.json(), d, out -> out.println("redelivery of " + d.path("id").asText() + " queued"));
        }
    }

    @Command(name = "replay-failed", mixinStandardHelpOptions = true, description = "Redeliver every dead-lettered delivery of a tenant since a time.")
    static final class ReplayFailed implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin AdminOptions admin;
        @Option(names = "--tenant", required = true, description = "tenant id") String tenant;
        @Option(names = "--since", required = true, description = "ISO-8601 instant (2026-01-31T00:00:00Z) or a duration back from now (PT6H, 6h, 30m, 2d)")
        String since;

        @Override
        public Integer call() throws Exception {
            JsonNode r = admin.api().postJson(path(tenant) + "/replay-failed?since=" + URLEncoder.encode(since(since).toString(), StandardCharsets.UTF_8), Map.of());
            return ClientOptions.print(spec, admin.json(), r, out -> out.println(r.path("replayed").size() + " dead-lettered deliveries queued again"));
        }

        static Instant since(String text) {
            String t = text.trim();
            try {
                return Instant.parse(t);
            } catch (java.time.format.DateTimeParseException e) {
                // not an instant: a duration back from now
            }
            try {
                if (t.toUpperCase().startsWith("P")) return Instant.now().minus(Duration.parse(t.toUpperCase()));
                long n = Long.parseLong(t.substring(0, t.length() - 1));
                return switch (t.charAt(t.length() - 1)) {
                    case 's' -> Instant.now().minusSeconds(n);
                    case 'm' -> Instant.now().minus(Duration.ofMinutes(n));
                    case 'h' -> Instant.now().minus(Duration.ofHours(n));
                    case 'd' -> Instant.now().minus(Duration.ofDays(n));
                    default -> throw new IllegalArgumentException();
                };
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("--since must be an ISO-8601 instant or a duration such as 6h, 30m, 2d or PT6H; got '" + text + "'");
            }
        }
    }

    @Command(name = "rotate-secret", mixinStandardHelpOptions = true,
            description = "Give a tenant a new webhook secret; the previous one keeps signing beside it for the overlap (FAIRPIX_WEBHOOKS_SECRET_OVERLAP_SECONDS).")
    static final class RotateSecret implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin AdminOptions admin;
        @Parameters(paramLabel = "TENANT", description = "tenant id") String tenant;

        @Override
        public Integer call() throws Exception {
            JsonNode r = admin.api().postJson("/admin/v1/tenants/" + URLEncoder.encode(tenant, StandardCharsets.UTF_8) + "/webhook-secret", Map.of());
            return ClientOptions.print(spec, admin.json(), r, out -> {
                out.println("webhookSecret " + r.path("webhookSecret").asText());
                if (r.hasNonNull("previousSecretValidUntil")) out.println("the previous secret also signs until " + r.get("previousSecretValidUntil").asText());
            });
        }
    }

    @Command(name = "listen", mixinStandardHelpOptions = true,
            description = "A webhook receiver for demos and checks: verifies Standard Webhooks signatures and prints each event (401 for a bad signature).")
    static final class Listen implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Option(names = "--port", defaultValue = "9000", description = "port on 127.0.0.1 (default ${DEFAULT-VALUE})") int port;
        @Option(names = "--secret", description = "a whsec_ secret to verify with; repeat for several tenants (none: print unverified)") List<String> secrets;
        @Option(names = "--secrets-file", description = "a file of whsec_ secrets, one per line, re-read on every request") java.nio.file.Path secretsFile;
        @Option(names = "--tolerance", defaultValue = "300", description = "accepted timestamp skew, seconds (default ${DEFAULT-VALUE})") long tolerance;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
            server.createContext("/", exchange -> {
                byte[] body = exchange.getRequestBody().readAllBytes();
                var h = exchange.getRequestHeaders();
                String id = h.getFirst(WebhookSignature.ID);
                String ts = h.getFirst(WebhookSignature.TIMESTAMP);
                String sig = h.getFirst(WebhookSignature.SIGNATURE);
                long now = Instant.now().getEpochSecond();
                String verdict;
                boolean ok;
                List<String> all = new java.util.ArrayList<>(secrets == null ? List.of() : secrets);
                if (secretsFile != null && java.nio.file.Files.exists(secretsFile)) {
                    java.nio.file.Files.readAllLines(secretsFile).stream().map(String::strip).filter(l -> l.startsWith("whsec_")).forEach(all::add);
                }
                if (all.isEmpty()) {
                    verdict = "UNVERIFIED";
                    ok = true;
                } else {
                    ok = all.stream().anyMatch(s -> WebhookSignature.verify(s, id, ts, sig, body, now, tolerance));
                    verdict = ok ? "VERIFIED" : "BAD-SIGNATURE";
                }
                String summary;
                try {
                    JsonNode event = Json.mapper().readTree(body);
                    summary = event.path("data").path("tenant").asText() + " " + event.path("type").asText() + " job " + event.path("data").path("jobId").asText();
                } catch (Exception e) {
                    summary = "(not JSON)";
                }
                synchronized (out) {
                    out.println(Instant.now() + " " + verdict + " " + summary + " webhook-id=" + id);
                    out.flush();
                }
                exchange.sendResponseHeaders(ok ? 204 : 401, -1);
                exchange.close();
            });
            server.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
            server.start();
            out.println("listening on http://127.0.0.1:" + server.getAddress().getPort() + "/");
            out.flush();
            CountDownLatch done = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                server.stop(0);
                done.countDown();
            }));
            done.await();
            return Fairpix.OK;
        }
    }
}
