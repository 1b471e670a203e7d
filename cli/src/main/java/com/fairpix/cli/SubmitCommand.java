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

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "JPEG, PNG or WebP files")
    List<Path> files;

    @Option(names = "--tenant-key", description = "tenant API key (FAIRPIX_TENANT_KEY)")
    String tenantKey;

    @Option(names = "--spec", required = true, description = "job spec JSON, or @FILE to read it from a file")
    String jobSpec;

    @Option(names = "--wait", description = "wait until every job is DONE, FAILED or CANCELLED")
    boolean waitForJobs;

    @Option(names = "--timeout", defaultValue = "300", description = "seconds to wait with --wait (default ${DEFAULT-VALUE})")
    int timeoutSeconds;

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
        for (Path file : files) {
            try {
                JsonNode job = api.submitHonouringRetryAfter(file, specJson);
                ids.add(job.get("id").asText());
                if (client.output == ClientOptions.Output.text && !waitForJobs) out.println(job.get("id").asText() + "\t" + file);
            } catch (ApiClient.ApiException e) {
                rejected++;
                err.println(file + ": " + e.getMessage());
            }
        }
        ArrayNode jobs = Json.mapper().createArrayNode();
        boolean allDone = true;
        if (waitForJobs) {
            long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
            for (String id : ids) {
                JsonNode job = api.get("/v1/jobs/" + id);
                while (!ApiClient.isTerminal(job) && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                    job = api.get("/v1/jobs/" + id);
                }
                jobs.add(job);
                allDone &= ApiClient.isTerminal(job);
                if (client.output == ClientOptions.Output.text) out.println(id + "\t" + job.get("state").asText()
                        + (job.hasNonNull("error") ? "\t" + job.get("error").get("reason").asText() : ""));
            }
        } else {
            for (String id : ids) jobs.add(Json.mapper().createObjectNode().put("id", id));
        }
        if (client.output == ClientOptions.Output.json) out.println(Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(jobs));
        out.flush();
        if (rejected > 0 || !allDone) return Fairpix.FAILED;
        return Fairpix.OK;
    }
}
