package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.cli.Fairpix;
import com.fairpix.core.json.Json;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/** `fairpix tenants ...` against a running ingest-api: each subcommand works and `--output json` is valid JSON. */
class TenantsCliIT {
    @RegisterExtension static final Farm.Ingest farm = new Farm.Ingest();
    static String url;

    @BeforeAll
    static void start() {
        url = "http://127.0.0.1:" + farm.api().port();
    }

    @Test
    void everyTenantsSubcommandPrintsValidJson() throws Exception {
        String id = Farm.tenantId("it-cli");
        JsonNode created = json("tenants", "create", id, "--weight", "2", "--rate", "5");
        assertThat(created.get("apiKey").asText()).startsWith("fpk_");
        assertThat(created.at("/tenant/weight").asDouble()).isEqualTo(2.0);

        assertThat(json("tenants", "get", id).get("state").asText()).isEqualTo("ACTIVE");
        JsonNode set = json("tenants", "set", id, "--max-upload-bytes", "1000000", "--allowed-formats", "jpeg,png", "--daily-quota", "500");
        assertThat(set.get("maxUploadBytes").asLong()).isEqualTo(1_000_000);
        assertThat(set.get("allowedFormats")).hasSize(2);
        assertThat(set.get("version").asLong()).isGreaterThan(created.at("/tenant/version").asLong());
        assertThat(json("tenants", "suspend", id).get("state").asText()).isEqualTo("SUSPENDED");
        assertThat(json("tenants", "activate", id).get("state").asText()).isEqualTo("ACTIVE");

        JsonNode key = json("tenants", "keys", "create", id);
        JsonNode keys = json("tenants", "keys", "list", id);
        assertThat(keys.get("keys")).hasSize(2);
        json("tenants", "keys", "revoke", id, key.get("keyId").asText());
        assertThat(json("tenants", "keys", "list", id).get("keys")).hasSize(1);

        JsonNode list = json("tenants", "list", "--limit", "1000");
        List<String> ids = new ArrayList<>();
        list.get("tenants").forEach(t -> ids.add(t.get("id").asText()));
        assertThat(ids).contains(id);
        assertThat(json("tenants", "delete", id).get("state").asText()).isEqualTo("DELETED");
    }

    @Test
    void aBadLimitIsRefusedWithTheReasonAndANonZeroExit() {
        StringWriter err = new StringWriter();
        CommandLine cl = Fairpix.commandLine();
        cl.setErr(new PrintWriter(err));
        cl.setOut(new PrintWriter(new StringWriter()));
        int code = cl.execute("tenants", "create", Farm.tenantId("it-cli-bad"), "--weight", "-1", "--url", url, "--admin-token", Farm.ADMIN_TOKEN);
        assertThat(code).isEqualTo(Fairpix.FAILED);
        assertThat(err.toString()).contains("400").contains("weight must be > 0");
    }

    private static JsonNode json(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--url", url, "--admin-token", Farm.ADMIN_TOKEN, "--output", "json"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Fairpix.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(all.toArray(String[]::new));
        assertThat(code).as(String.join(" ", args) + ": " + err).isZero();
        return Json.mapper().readTree(out.toString()); // throws on invalid JSON
    }
}
