package com.fairpix.cli;

import com.fairpix.core.config.Setting;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** How an admin command reaches the admin API: URL, token, output format. */
final class AdminOptions {
    @Mixin ClientOptions client;

    @Option(names = "--admin-token", description = "admin token (FAIRPIX_ADMIN_TOKEN)")
    String adminToken;

    ApiClient api() {
        String token = ClientOptions.setting(adminToken, Setting.ADMIN_TOKEN);
        if (token == null) throw new IllegalArgumentException("an admin token is needed: --admin-token or FAIRPIX_ADMIN_TOKEN");
        return new ApiClient(client.baseUrl(), token);
    }

    boolean json() {
        return client.output == ClientOptions.Output.json;
    }
}
