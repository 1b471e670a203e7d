package com.fairpix.autoscaler.signal;

import com.fairpix.autoscaler.signal.internal.FarmSignalSource;
import com.fairpix.autoscaler.signal.internal.IngestQpsReader;
import com.fairpix.autoscaler.signal.internal.KafkaLagReader;
import com.fairpix.core.admission.AdmissionLeases;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.kafka.TenantPlacement;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantStore;
import java.time.Clock;
import java.time.Duration;
import redis.clients.jedis.UnifiedJedis;

/** Builds the signal readers; the only way in from outside the package. */
public final class Signals {
    private Signals() {}

    /**
     * The farm's signals as the autoscaler reads them: each pool's consumer lag from Kafka
     * ({@code kafka.bootstrap}), ingest's accepted jobs per second from Redis, and each tenant's
     * share of the lag, at most its admission leases live on {@code clock}.
     *
     * @param redis       closed with the source
     * @param readTimeout how long one Kafka reading may take before it counts as failed
     * @param qpsSeconds  complete seconds the QPS is averaged over (usually the evaluation period)
     */
    public static SignalSource farm(FairpixConfig config, UnifiedJedis redis, Clock clock, Duration readTimeout, int qpsSeconds) {
        TenantStore tenants = new TenantStore(redis, clock);
        AdmissionLeases leases = new AdmissionLeases(redis);
        return new FarmSignalSource(new KafkaLagReader(config.get(Setting.KAFKA_BOOTSTRAP), readTimeout), new IngestQpsReader(redis), qpsSeconds, redis,
                new TenantPlacement(config.decimal(Setting.TENANT_PARTITION_RATE)),
                t -> tenants.get(t).map(Tenant::rate).orElse(0.0),
                t -> leases.live(t, clock.instant()));
    }

    /** @param timeout how long one reading may take before it throws */
    public static LagReader kafkaLag(String bootstrap, Duration timeout) {
        return new KafkaLagReader(bootstrap, timeout);
    }
}
