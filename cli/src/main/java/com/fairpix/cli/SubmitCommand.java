package com.fairpix.cli;

import com.fairpix.core.json.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "submit", mixinStandardHelpOptions = true,
        description = {"Submit image files as jobs of the tenant owning the key; prints one job id per file.",
                "A 429 or 503 with Retry-After is retried after it (at most 10 times)."})
final class SubmitCommand implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ClientOptions client;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "image files: JPEG, PNG, WebP, TIFF, BMP, GIF, HEIC or AVIF")
    List<Path> files;

    @Option(names = "--tenant-key", description = "tenant API key (FAIRPIX_TENANT_KEY)")
    String tenantKey;

    @Option(names = "--spec", required = true, description = "job spec JSON, or @FILE to read it from a file")
    String jobSpec;

    @Option(names = "--wait", description = "wait until every job is DONE, FAILED or CANCELLED")
    boolean waitForJobs;

    @Option(names = "--timeout", defaultValue = "300", description = "seconds to wait with --wait (default ${DEFAULT-VALUE})")
    int timeoutSeconds;

    enum Progress { auto, always, never }

    @Option(names = "--progress", defaultValue = "auto",
            description = "progress bar on stderr while submitting (and waiting): auto = when several files and a terminal, always, never (default ${DEFAULT-VALUE})")
    Progress progress;

    /** Where the bar is drawn; tests replace it. Null: the process's stderr. */
    me.tongfei.progressbar.ProgressBarConsumer barConsumer;

    @Override
    public Integer call() throws Exception {
        String key = ClientOptions.env(tenantKey, "FAIRPIX_TENANT_KEY");
        if (key == null) throw new IllegalArgumentException("a tenant key is needed: --tenant-key or FAIRPIX_TENANT_KEY");
        String specJson = jobSpec.startsWith("@") ? Files.readString(Path.of(jobSpec.substring(1))) : jobSpec;
        ApiClient api = new ApiClient(client.baseUrl(), key);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<String> ids = new ArrayList<>();
        int rejected = 0;
        // With a bar on the terminal, lines wait until it is done (they would tear it).
        List<String> lines = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        try (me.tongfei.progressbar.ProgressBar bar = bar("submit", files.size())) {
            for (Path file : files) {
                try {
                    JsonNode job = api.submitHonouringRetryAfter(file, specJson);
                    ids.add(job.get("id").asText());
                    if (client.output == ClientOptions.Output.text && !waitForJobs) lines.add(job.get("id").asText() + "\t" + file);
                } catch (ApiClient.ApiException e) {
                    rejected++;
                    errors.add(file + ": " + e.getMessage());
                }
                if (bar != null) {
                    bar.step();
                    bar.setExtraMessage(rejected == 0 ? "" : rejected + " refused");
                } else {
                    lines.forEach(out::println);
                    errors.forEach(err::println);
                    lines.clear();
                    errors.clear();
                    out.flush();
                }
            }
        }
        lines.forEach(out::println);
        errors.forEach(err::println);
        ArrayNode jobs = Json.mapper().createArrayNode();
        boolean allDone = true;
        if (waitForJobs) {
            long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
            List<String> states = new ArrayList<>();
            try (me.tongfei.progressbar.ProgressBar bar = bar("wait", ids.size())) {
                for (String id : ids) {
                    JsonNode job = api.get("/v1/jobs/" + id);
                    while (!ApiClient.isTerminal(job) && System.nanoTime() < deadline) {
                        Thread.sleep(200);
                        job = api.get("/v1/jobs/" + id);
                    }
                    jobs.add(job);
                    allDone &= ApiClient.isTerminal(job);
                    if (client.output == ClientOptions.Output.text) states.add(id + "\t" + job.get("state").asText()
                            + (job.hasNonNull("error") ? "\t" + job.get("error").get("reason").asText() : ""));
                    if (bar != null) bar.step();
                    else {
                        states.forEach(out::println);
                        states.clear();
                    }
                }
            }
            states.forEach(out::println);
        } else {
            for (String id : ids) jobs.add(Json.mapper().createObjectNode().put("id", id));
        }
        if (client.output == ClientOptions.Output.json) out.println(Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(jobs));
        out.flush();
        if (rejected > 0 || !allDone) return Fairpix.FAILED;
        return Fairpix.OK;
    }

    /**
     * A bar of {@code total} steps on stderr (me.tongfei:progressbar), or null when there is none to
     * draw: {@code --progress never}, or {@code auto} with one file or without a terminal (a pipe, a
     * file, CI), where a bar would only write noise.
     */
    private me.tongfei.progressbar.ProgressBar bar(String task, int total) {
        boolean show = switch (progress) {
            case always -> true;
            case never -> false;
            case auto -> total > 1 && interactive();
        };
        if (!show) return null;
        var b = new me.tongfei.progressbar.ProgressBarBuilder().setTaskName(task).setInitialMax(total).setUpdateIntervalMillis(200)
                .setStyle(me.tongfei.progressbar.ProgressBarStyle.ASCII).showSpeed().setUnit(" files", 1);
        b.setConsumer(barConsumer != null ? barConsumer : new me.tongfei.progressbar.ConsoleProgressBarConsumer(System.err));
        return b.build();
    }

    /** Whether this process talks to a terminal (stdin and stdout not redirected). */
    static boolean interactive() {
        java.io.Console console = System.console();
        if (console == null) return false;
        try {
            // Since Java 22 System.console() exists for redirected streams too; isTerminal() tells.
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true; // Java 21: a console means a terminal
        }
    }
}
