package com.fairpix.cli;

import com.fairpix.core.config.Setting;
import picocli.CommandLine.Option;

/** Where the scale and top commands find the autoscaler's admin API, and how they print. */
final class AutoscalerOptions {
    @Option(names = "--url", description = "autoscaler base URL (FAIRPIX_AUTOSCALER_URL, cli.autoscaler-url; default http://127.0.0.1:8082)")
    String url;

    @Option(names = "--admin-token", description = "admin token (FAIRPIX_ADMIN_TOKEN)")
    String adminToken;

    @Option(names = {"-o", "--output"}, defaultValue = "text", description = "text or json (default ${DEFAULT-VALUE})")
    ClientOptions.Output output;

    ApiClient client() {
        String token = ClientOptions.setting(adminToken, Setting.ADMIN_TOKEN);
        if (token == null) throw new IllegalArgumentException("an admin token is needed: --admin-token or FAIRPIX_ADMIN_TOKEN");
        return new ApiClient(ClientOptions.setting(url, Setting.AUTOSCALER_URL), token, ApiClient.AUTOSCALER);
    }

    /** The ingest API's admin client at {@code url} (else FAIRPIX_URL, cli.url), with the same token. */
    ApiClient ingest(String url) {
        String token = ClientOptions.setting(adminToken, Setting.ADMIN_TOKEN);
        if (token == null) throw new IllegalArgumentException("an admin token is needed: --admin-token or FAIRPIX_ADMIN_TOKEN");
        return new ApiClient(ClientOptions.setting(url, Setting.URL), token, ApiClient.INGEST);
    }

    boolean json() {
        return output == ClientOptions.Output.json;
    }
}
