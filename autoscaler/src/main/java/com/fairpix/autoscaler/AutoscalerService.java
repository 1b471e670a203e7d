package com.fairpix.autoscaler;

import com.fairpix.autoscaler.actuate.Actuator;
import com.fairpix.autoscaler.actuate.Actuators;
import com.fairpix.autoscaler.policy.PolicyConfig;
import com.fairpix.autoscaler.signal.SignalSource;
import com.fairpix.autoscaler.signal.Signals;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.http.ServiceHttp;
import com.fairpix.core.kafka.KafkaSupport;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.time.SystemTime;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;

/** Wires the autoscaler from configuration: real signals, the configured actuator, HTTP. */
public final class AutoscalerService {
    private AutoscalerService() {}

    /**
     * @param workerJar the packaged fairpix.jar the local actuator starts workers from (ignored by the others)
     * @param httpPort  port for the admin API and /metrics (0 = any free port)
     */
    public static Autoscaler start(FairpixConfig config, Path workerJar, int httpPort) {
        com.fairpix.core.http.AdminTokens.check(config);
        Map<String, PolicyConfig> policies = new LinkedHashMap<>();
        for (String pool : config.list(Setting.AUTOSCALER_POOLS)) policies.put(pool, PolicyConfig.from(config, pool));
        Clock clock = SystemTime.clock();
        int interval = config.integer(Setting.AUTOSCALER_INTERVAL_SECONDS);
        String bootstrap = config.get(Setting.KAFKA_BOOTSTRAP);
        KafkaSupport.ensureTopics(bootstrap, config.integer(Setting.JOB_PARTITIONS));
        UnifiedJedis redis = Redis.connect(config.get(Setting.REDIS_URL));
        // A reading must finish well within one period, or the next one is late.
        Duration readTimeout = Duration.ofMillis(Math.max(2000, Math.min(5000, interval * 800L)));
        SignalSource signals = Signals.farm(config, redis, clock, readTimeout, interval);
        Actuator actuator = Actuators.fromConfig(config, workerJar, policies.values().iterator().next().minReplicas(), clock, SystemTime.nanos());
        PrometheusMeterRegistry registry = ServiceHttp.newRegistry();
        Autoscaler autoscaler = new Autoscaler(policies, signals, actuator, clock, registry);
        autoscaler.startHttp(registry, config.get(Setting.BIND_HOST), httpPort, config.get(Setting.ADMIN_TOKEN),
                com.fairpix.core.http.MetricsAccess.tokenOnServicePort(config));
        autoscaler.startLoop(Duration.ofSeconds(interval));
        return autoscaler;
    }
}
