package com.fairpix.cli;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.ingest.IngestApi;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "ingest-api", mixinStandardHelpOptions = true,
        description = "Run the ingest API: tenant API (/v1), admin API (/admin/v1), /metrics and /health on one port.")
final class IngestApiCommand implements Callable<Integer> {
    @Mixin ServiceOptions service;

    @Option(names = "--port", description = "listen port (FAIRPIX_INGEST_PORT, default 8080)")
    Integer port;

    @Override
    public Integer call() {
        Map<Setting, String> more = new java.util.EnumMap<>(Setting.class);
        if (port != null) more.put(Setting.INGEST_PORT, port.toString());
        FairpixConfig config = service.config(more);
        IngestApi api = IngestApi.start(config);
        return Services.runUntilSignalled(api::close);
    }
}
