package com.fairpix.cli;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import java.util.EnumMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** Flags shared by the service commands; each overrides its FAIRPIX_* variable. */
final class ServiceOptions {
    @Option(names = "--kafka", description = "Kafka bootstrap servers (FAIRPIX_KAFKA_BOOTSTRAP)")
    String kafka;

    @Option(names = "--redis", description = "Redis URL: redis://host:port, or redis-cluster://host:port[,host:port...] for a Redis Cluster (FAIRPIX_REDIS_URL)")
    String redis;

    @Option(names = "--s3-endpoint", description = "S3 endpoint URL (FAIRPIX_S3_ENDPOINT)")
    String s3Endpoint;

    @Option(names = "--bind", description = "address to listen on (FAIRPIX_BIND_HOST)")
    String bind;

    FairpixConfig config(Map<Setting, String> more) {
        Map<Setting, String> overrides = new EnumMap<>(Setting.class);
        if (kafka != null) overrides.put(Setting.KAFKA_BOOTSTRAP, kafka);
        if (redis != null) overrides.put(Setting.REDIS_URL, redis);
        if (s3Endpoint != null) overrides.put(Setting.S3_ENDPOINT, s3Endpoint);
        if (bind != null) overrides.put(Setting.BIND_HOST, bind);
        more.forEach((k, v) -> {
            if (v != null) overrides.put(k, v);
        });
        return FairpixConfig.load(System.getenv(), overrides);
    }
}
