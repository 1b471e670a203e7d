package com.fairpix.cli;

import com.fairpix.core.config.Setting;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Run a folder of images through a running farm for several tenants: create the tenants (or a new key",
                "for existing ones), submit every image for each, wait, download the results, print a table of",
                "submitted / done / failed and submit→done latency (p50, p99 from the jobs' own timestamps).",
                "A 429 or 503 with Retry-After is retried after it, as a well-behaved client does.",
                "Exit 0 only if every accepted job reached a terminal state."})
final class DemoCommand implements Callable<Integer> {
    static final String SPEC = "{\"variants\":{"
            + "\"thumb\":[{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"webp\",\"quality\":80}],"
            + "\"large\":[{\"op\":\"resize\",\"width\":1024,\"height\":1024,\"fit\":\"contain\"},{\"op\":\"encode\",\"format\":\"jpeg\",\"quality\":85}],"
            + "\"modern\":[{\"op\":\"resize\",\"width\":512,\"height\":512,\"fit\":\"contain\"},{\"op\":\"encode\",\"format\":\"avif\",\"quality\":50}]}}";

    @Spec CommandSpec spec;
    @Mixin ClientOptions client;

    @Parameters(paramLabel = "DIR", defaultValue = "samples", description = "folder of images: .jpg/.jpeg/.png/.webp/.tif/.tiff/.bmp/.gif/.heic/.heif/.avif (default ${DEFAULT-VALUE})")
    Path dir;

    @Option(names = "--tenants", split = ",", defaultValue = "acme,globex,initech", description = "tenant ids (default ${DEFAULT-VALUE})")
    List<String> tenants;

    @Option(names = "--out", defaultValue = "demo-out", description = "where results go, one folder per tenant (default ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--admin-token", description = "admin token (FAIRPIX_ADMIN_TOKEN)")
    String adminToken;

    @Option(names = "--webhook-url", description = "send each tenant's job notifications to this URL + /<tenant> (e.g. a 'fairpix webhooks listen' receiver)")
    String webhookUrl;

    @Option(names = "--webhook-secrets-file", description = "write the tenants' webhook secrets here, one per line (for 'fairpix webhooks listen --secrets-file')")
    Path webhookSecretsFile;

    @Option(names = "--timeout", defaultValue = "300", description = "seconds to wait for all jobs (default ${DEFAULT-VALUE})")
    int timeoutSeconds;

    private record Submitted(String tenant, String key, Path file, String jobId) {}

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter stderr = spec.commandLine().getErr();
        String token = ClientOptions.setting(adminToken, Setting.ADMIN_TOKEN);
        if (token == null) throw new IllegalArgumentException("an admin token is needed: --admin-token or FAIRPIX_ADMIN_TOKEN");
        List<Path> images;
        try (Stream<Path> s = Files.list(dir)) {
            images = s.filter(p -> p.getFileName().toString().toLowerCase(Locale.ROOT).matches(".*\\.(jpe?g|png|webp|tiff?|bmp|gif|hei[cf]|avif)$")).sorted().toList();
        }
        if (images.isEmpty()) throw new IllegalArgumentException("no image files (.jpg, .jpeg, .png, .webp, .tif, .tiff, .bmp, .gif, .heic, .heif, .avif) in " + dir);

        ApiClient admin = new ApiClient(client.baseUrl(), token);
        Map<String, String> keys = new LinkedHashMap<>();
        for (String tenant : tenants) keys.put(tenant, keyFor(admin, tenant));
        if (webhookUrl != null) {
            List<String> secrets = new ArrayList<>();
            for (String tenant : tenants) {
                admin.patchJson("/admin/v1/tenants/" + tenant, Map.of("webhookUrl", webhookUrl.replaceAll("/+$", "") + "/" + tenant));
                // Admin reads never show a secret; a rotation does (and the receiver needs it).
                JsonNode rotated = admin.postJson("/admin/v1/tenants/" + tenant + "/webhook-secret", Map.of());
                secrets.add(rotated.path("webhookSecret").asText());
            }
            if (webhookSecretsFile != null) Files.write(webhookSecretsFile, secrets);
        }

        // Submit every image for every tenant, interleaved, a few at a time.
        Map<String, Integer> rejected = new LinkedHashMap<>();
        List<Submitted> submitted = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            List<Future<Submitted>> futures = new ArrayList<>();
            for (Path image : images) {
                for (var t : keys.entrySet()) {
                    futures.add(pool.submit(() -> {
                        try {
                            JsonNode job = new ApiClient(client.baseUrl(), t.getValue()).submitHonouringRetryAfter(image, SPEC);
                            return new Submitted(t.getKey(), t.getValue(), image, job.get("id").asText());
                        } catch (ApiClient.ApiException e) {
                            stderr.println(t.getKey() + ": " + image.getFileName() + " rejected: " + e.getMessage());
                            return new Submitted(t.getKey(), t.getValue(), image, null);
                        }
                    }));
                }
            }
            for (Future<Submitted> f : futures) {
                Submitted s = f.get();
                if (s.jobId() == null) rejected.merge(s.tenant(), 1, Integer::sum);
                else submitted.add(s);
            }
        }

        // Wait for every job, then download its results.
        Map<String, JsonNode> finalJobs = new LinkedHashMap<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
        for (Submitted s : submitted) {
            ApiClient api = new ApiClient(client.baseUrl(), s.key());
            JsonNode job = api.get("/v1/jobs/" + s.jobId());
            while (!ApiClient.isTerminal(job) && System.nanoTime() < deadline) {
                Thread.sleep(100);
                job = api.get("/v1/jobs/" + s.jobId());
            }
            finalJobs.put(s.jobId(), job);
            if ("DONE".equals(job.path("state").asText())) {
                Path folder = out.resolve(s.tenant());
                Files.createDirectories(folder);
                String base = s.file().getFileName().toString().replaceFirst("\\.[^.]+$", "");
                var results = job.path("results").fields();
                while (results.hasNext()) {
                    var r = results.next();
                    String ext = r.getValue().path("format").asText().equals("jpeg") ? "jpg" : r.getValue().path("format").asText();
                    Files.write(folder.resolve(base + "." + r.getKey() + "." + ext), api.download(r.getValue().path("url").asText()));
                }
            } else if ("FAILED".equals(job.path("state").asText())) {
                stderr.println(s.tenant() + ": " + s.file().getFileName() + " FAILED: " + job.path("error").path("reason").asText() + " " + job.path("error").path("message").asText());
            }
        }

        stdout.printf("%-12s %9s %6s %6s %8s %8s %8s%n", "tenant", "submitted", "done", "failed", "rejected", "p50 s", "p99 s");
        boolean allTerminal = true;
        for (String tenant : keys.keySet()) {
            List<Double> latencies = new ArrayList<>();
            int n = 0, done = 0, failed = 0;
            for (Submitted s : submitted) {
                if (!s.tenant().equals(tenant)) continue;
                n++;
                JsonNode job = finalJobs.get(s.jobId());
                String state = job.path("state").asText();
                if (state.equals("DONE")) done++;
                if (state.equals("FAILED")) failed++;
                allTerminal &= ApiClient.isTerminal(job);
                if (job.hasNonNull("finishedAt")) {
                    latencies.add(Duration.between(Instant.parse(job.get("createdAt").asText()), Instant.parse(job.get("finishedAt").asText())).toNanos() / 1e9);
                }
            }
            stdout.printf("%-12s %9d %6d %6d %8d %8s %8s%n", tenant, n, done, failed, rejected.getOrDefault(tenant, 0),
                    fmt(percentile(latencies, 0.50)), fmt(percentile(latencies, 0.99)));
        }
        if (webhookUrl != null) printDeliveries(admin, stdout);
        stdout.println("results in " + out.toAbsolutePath());
        stdout.flush();
        if (!allTerminal) stderr.println("some jobs did not reach a terminal state within " + timeoutSeconds + " s");
        return allTerminal && !submitted.isEmpty() ? Fairpix.OK : Fairpix.FAILED;
    }

    /** Webhook deliveries per tenant, once the dispatcher has had a moment for the last ones. */
    private void printDeliveries(ApiClient admin, PrintWriter stdout) throws Exception {
        stdout.printf("%n%-12s %10s %9s %7s %6s%n", "tenant", "webhooks", "delivered", "pending", "dead");
        long deadline = System.nanoTime() + 10_000_000_000L;
        for (String tenant : tenants) {
            JsonNode page;
            int delivered, pending, dead;
            do {
                page = admin.get("/admin/v1/tenants/" + tenant + "/webhooks?limit=1000");
                delivered = 0;
                pending = 0;
                dead = 0;
                for (JsonNode d : page.path("deliveries")) {
                    switch (d.path("status").asText()) {
                        case "SUCCEEDED" -> delivered++;
                        case "PENDING" -> pending++;
                        default -> dead++;
                    }
                }
                if (pending > 0) Thread.sleep(200);
            } while (pending > 0 && System.nanoTime() < deadline);
            stdout.printf("%-12s %10d %9d %7d %6d%n", tenant, page.path("deliveries").size(), delivered, pending, dead);
        }
    }

    private static String keyFor(ApiClient admin, String tenant) throws Exception {
        try {
            return admin.postJson("/admin/v1/tenants", Map.of("id", tenant)).get("apiKey").asText();
        } catch (ApiClient.ApiException e) {
            if (e.status() != 409) throw e;
            return admin.postJson("/admin/v1/tenants/" + tenant + "/keys", Map.of()).get("apiKey").asText();
        }
    }

    /** Nearest-rank percentile; null for no data. */
    static Double percentile(List<Double> values, double p) {
        if (values.isEmpty()) return null;
        List<Double> sorted = values.stream().sorted().toList();
        int rank = (int) Math.ceil(p * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    private static String fmt(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }
}
