package com.fairpix.cli;

import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "jobs", mixinStandardHelpOptions = true, description = "Inspect jobs.",
        subcommands = {JobsCommand.Get.class})
final class JobsCommand {

    @Command(name = "get", mixinStandardHelpOptions = true,
            description = "Show one job: with --tenant-key through the tenant API, else through the admin API.")
    static final class Get implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin ClientOptions client;

        @Parameters(paramLabel = "ID", description = "job id")
        String id;

        @Option(names = "--tenant-key", description = "tenant API key (FAIRPIX_TENANT_KEY)")
        String tenantKey;

        @Option(names = "--admin-token", description = "admin token (FAIRPIX_ADMIN_TOKEN)")
        String adminToken;

        @Override
        public Integer call() throws Exception {
            String key = ClientOptions.env(tenantKey, "FAIRPIX_TENANT_KEY");
            JsonNode job;
            if (key != null) {
                job = new ApiClient(client.baseUrl(), key).get("/v1/jobs/" + id);
            } else {
                String token = ClientOptions.setting(adminToken, Setting.ADMIN_TOKEN);
                if (token == null) throw new IllegalArgumentException("give --tenant-key (tenant view) or --admin-token (admin view)");
                job = new ApiClient(client.baseUrl(), token).get("/admin/v1/jobs/" + id).get("job");
            }
            PrintWriter out = spec.commandLine().getOut();
            if (client.output == ClientOptions.Output.json) {
                out.println(Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(job));
            } else {
                out.printf("id        %s%nstate     %s%ncreated   %s%nfinished  %s%noriginal  %s %dx%d, %d bytes, sha256 %s%n",
                        job.get("id").asText(), job.get("state").asText(), job.path("createdAt").asText(),
                        job.path("finishedAt").asText("-"), job.path("original").path("format").asText(),
                        job.path("original").path("width").asInt(), job.path("original").path("height").asInt(),
                        job.path("original").path("size").asLong(), job.path("original").path("sha256").asText());
                if (job.hasNonNull("error")) out.printf("error     %s: %s%n", job.get("error").path("reason").asText(), job.get("error").path("message").asText());
                job.path("results").fields().forEachRemaining(r -> out.printf("result    %-10s %s %dx%d, %d bytes  %s%n", r.getKey(),
                        r.getValue().path("format").asText(), r.getValue().path("width").asInt(), r.getValue().path("height").asInt(),
                        r.getValue().path("size").asLong(), r.getValue().path("url").asText()));
            }
            out.flush();
            return Fairpix.OK;
        }
    }
}
