package com.fairpix.cli;

import com.fairpix.core.json.Json;
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

@Command(name = "tenants", mixinStandardHelpOptions = true, description = "Manage tenants through the admin API.",
        subcommands = {TenantsCommand.Create.class})
final class TenantsCommand {

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Create a tenant and print its API key (shown once; store it now).")
    static final class Create implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin ClientOptions client;

        @Parameters(paramLabel = "ID", description = "tenant id: [a-z0-9][a-z0-9-]{1,62}")
        String id;

        @Option(names = "--admin-token", description = "admin token (FAIRPIX_ADMIN_TOKEN)")
        String adminToken;

        @Option(names = "--weight", description = "fair-share weight (default 1)")
        Double weight;

        @Option(names = "--rate", description = "token-bucket refill rate, tokens/s")
        Double rate;

        @Option(names = "--burst", description = "token-bucket size, tokens")
        Double burst;

        @Option(names = "--max-upload-bytes", description = "largest upload, bytes")
        Long maxUploadBytes;

        @Option(names = "--max-pixels", description = "largest image, pixels")
        Long maxPixels;

        @Override
        public Integer call() throws Exception {
            String token = ClientOptions.env(adminToken, "FAIRPIX_ADMIN_TOKEN");
            if (token == null) throw new IllegalArgumentException("an admin token is needed: --admin-token or FAIRPIX_ADMIN_TOKEN");
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("id", id);
            if (weight != null) body.put("weight", weight);
            if (rate != null) body.put("rate", rate);
            if (burst != null) body.put("burst", burst);
            if (maxUploadBytes != null) body.put("maxUploadBytes", maxUploadBytes);
            if (maxPixels != null) body.put("maxPixels", maxPixels);
            JsonNode created = new ApiClient(client.baseUrl(), token).postJson("/admin/v1/tenants", body);
            PrintWriter out = spec.commandLine().getOut();
            if (client.output == ClientOptions.Output.json) {
                out.println(Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(created));
            } else {
                JsonNode t = created.get("tenant");
                out.printf("tenant   %s (%s), weight %s, rate %s/s, burst %s%napiKey   %s%n", t.get("id").asText(), t.get("state").asText(),
                        t.get("weight").asText(), t.get("rate").asText(), t.get("burst").asText(), created.get("apiKey").asText());
                out.println("(the key is shown once; store it now)");
            }
            out.flush();
            return Fairpix.OK;
        }
    }
}
