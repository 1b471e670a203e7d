package com.fairpix.cli;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import com.fairpix.worker.notify.WebhookDispatcher;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(name = "local", mixinStandardHelpOptions = true,
        description = "Run the ingest API, a CPU worker and the webhook dispatcher in one JVM (ports from FAIRPIX_INGEST_PORT, FAIRPIX_WORKER_PORT, FAIRPIX_WEBHOOKS_PORT).")
final class LocalCommand implements Callable<Integer> {
    @Mixin ServiceOptions service;

    @Override
    public Integer call() {
        FairpixConfig config = service.config(Map.of());
        Worker worker = Worker.start(config, config.integer(Setting.WORKER_PORT));
        WebhookDispatcher webhooks = WebhookDispatcher.start(config, config.integer(Setting.WEBHOOKS_PORT));
        IngestApi api = IngestApi.start(config);
        return Services.runUntilSignalled(() -> {
            api.close();
            webhooks.stop(Duration.ofSeconds(20));
            worker.stop(Duration.ofSeconds(30));
        });
    }
}
