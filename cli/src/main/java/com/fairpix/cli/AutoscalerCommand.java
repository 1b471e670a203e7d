package com.fairpix.cli;

import com.fairpix.autoscaler.Autoscaler;
import com.fairpix.autoscaler.AutoscalerService;
import com.fairpix.autoscaler.actuate.Actuators;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "autoscaler", mixinStandardHelpOptions = true,
        description = {"Run the autoscaler: reads ingest QPS (Redis) and consumer lag (Kafka) per pool, decides replicas, and starts/stops workers.",
                "Actuators: local (worker processes of this jar), kubernetes (Deployment replicas), dry-run (log only).",
                "Policy settings: FAIRPIX_AUTOSCALER_* (see 'fairpix config'); change them live with 'fairpix scale policy'."})
final class AutoscalerCommand implements Callable<Integer> {
    @Mixin ServiceOptions service;

    @Option(names = "--port", description = "admin API and /metrics port (FAIRPIX_AUTOSCALER_PORT, default 8082)")
    Integer port;

    @Option(names = "--actuator", description = "local, kubernetes or dry-run (FAIRPIX_AUTOSCALER_ACTUATOR, default local)")
    String actuator;

    @Option(names = "--pools", description = "pools to manage, comma-separated (FAIRPIX_AUTOSCALER_POOLS, default cpu,gpu)")
    String pools;

    @Option(names = "--interval", description = "seconds between evaluations (FAIRPIX_AUTOSCALER_INTERVAL_SECONDS, default 5)")
    Integer interval;

    @Override
    public Integer call() {
        Map<Setting, String> more = new EnumMap<>(Setting.class);
        if (port != null) more.put(Setting.AUTOSCALER_PORT, port.toString());
        if (actuator != null) more.put(Setting.AUTOSCALER_ACTUATOR, actuator);
        if (pools != null) more.put(Setting.AUTOSCALER_POOLS, pools);
        if (interval != null) more.put(Setting.AUTOSCALER_INTERVAL_SECONDS, interval.toString());
        FairpixConfig config = service.config(more);
        // The local actuator starts workers from the jar this command runs from (cli/target/fairpix.jar).
        Autoscaler autoscaler = AutoscalerService.start(config, Actuators.jarOf(Fairpix.class), config.integer(Setting.AUTOSCALER_PORT));
        return Services.runUntilSignalled(autoscaler::close);
    }
}
