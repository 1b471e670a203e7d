package com.fairpix.cli;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.function.Consumer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** Where the CLI finds the API, and how it prints. */
final class ClientOptions {
    enum Output { text, json }

    @Option(names = "--url", description = "ingest-api base URL (FAIRPIX_URL, cli.url; default http://127.0.0.1:8080)")
    String url;

    @Option(names = {"-o", "--output"}, defaultValue = "text", description = "text or json (default ${DEFAULT-VALUE})")
    Output output;

    String baseUrl() {
        return setting(url, Setting.URL);
    }

    /**
     * The flag's value, else the setting's as every command resolves it ({@link FairpixConfig}: its
     * {@code FAIRPIX_*} variable, the {@code FAIRPIX_CONFIG} file, its default); blank counts as absent.
     *
     * @return null when the flag, the setting and its default are all blank
     * @throws IllegalArgumentException when a setting's value is refused (as for every command)
     */
    static String setting(String flag, Setting setting) {
        return flag != null && !flag.isBlank() ? flag : setting(setting, FairpixConfig.fromEnvironment());
    }

    /** {@code setting}'s value in {@code config}, its default when that is blank; null when both are. */
    static String setting(Setting setting, FairpixConfig config) {
        String value = config.get(setting).isBlank() ? setting.defaultValue() : config.get(setting);
        return value.isBlank() ? null : value;
    }

    /** The flag's value, else the environment variable's (one that is no setting, e.g. a tenant's key); blank counts as absent. */
    static String env(String explicit, String variable) {
        if (explicit != null && !explicit.isBlank()) return explicit;
        String v = System.getenv(variable);
        return v == null || v.isBlank() ? null : v;
    }

    static void printJson(PrintWriter out, JsonNode node) throws JsonProcessingException {
        out.println(Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(node));
    }

    /**
     * A command's answer on its output: {@code node} as pretty JSON with {@code --output json},
     * else what {@code text} prints.
     *
     * @return {@link Fairpix#OK}, for the command to return
     */
    static int print(CommandSpec spec, boolean json, JsonNode node, Consumer<PrintWriter> text) throws JsonProcessingException {
        PrintWriter out = spec.commandLine().getOut();
        if (json) printJson(out, node);
        else text.accept(out);
        out.flush();
        return Fairpix.OK;
    }
}
