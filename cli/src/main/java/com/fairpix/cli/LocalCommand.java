package com.fairpix.cli;

import com.fairpix.autoscaler.Autoscaler;
import com.fairpix.autoscaler.AutoscalerService;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import com.fairpix.webhooks.DispatcherConfig;
import com.fairpix.webhooks.UrlGuard;
import com.fairpix.webhooks.WebhooksService;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "local", mixinStandardHelpOptions = true,
        description = {"Run the ingest API, a CPU worker and the webhook dispatcher in one JVM (ports from FAIRPIX_INGEST_PORT, FAIRPIX_WORKER_PORT, FAIRPIX_WEBHOOKS_PORT).",
                "With --with-autoscaler also the autoscaler (FAIRPIX_AUTOSCALER_PORT), so 'fairpix top' and 'fairpix scale' work: it manages the gpu pool's workers as processes of this jar (the cpu pool is the worker in this JVM)."})
final class LocalCommand implements Callable<Integer> {
    @Mixin ServiceOptions service;

    @Option(names = "--with-autoscaler", description = "also run the autoscaler, managing the gpu pool with local worker processes")
    boolean withAutoscaler;

    @Override
    public Integer call() {
        Map<Setting, String> more = new EnumMap<>(Setting.class);
        if (withAutoscaler) {
            // The in-process worker is the cpu pool; an actuator counting processes would not see it.
            more.put(Setting.AUTOSCALER_POOLS, "gpu");
            more.put(Setting.AUTOSCALER_ACTUATOR, "local");
        }
        FairpixConfig config = service.config(more);
        // Checked before anything starts, so a bad webhook setting leaves no worker running.
        DispatcherConfig webhooksConfig = DispatcherConfig.from(config);
        Worker worker = Worker.start(config, config.integer(Setting.WORKER_PORT));
        WebhooksService webhooks = WebhooksService.start(config, webhooksConfig, config.integer(Setting.WEBHOOKS_PORT), UrlGuard.SYSTEM_DNS);
        IngestApi api = IngestApi.start(config);
        Autoscaler autoscaler = withAutoscaler
                ? AutoscalerService.start(config, com.fairpix.autoscaler.actuate.Actuators.jarOf(Fairpix.class), config.integer(Setting.AUTOSCALER_PORT))
                : null;
        return Services.runUntilSignalled(() -> {
            if (autoscaler != null) autoscaler.close(); // stops the worker processes it started
            api.close();
            webhooks.stop(Duration.ofSeconds(20));
            worker.stop(Duration.ofSeconds(30));
        });
    }
}
