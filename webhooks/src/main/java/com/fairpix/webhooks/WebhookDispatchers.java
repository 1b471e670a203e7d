package com.fairpix.webhooks;

import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.tenant.TenantDirectory;
import com.fairpix.core.tenant.TenantStore;
import com.fairpix.webhooks.internal.DefaultWebhookDispatcher;
import com.fairpix.webhooks.internal.RedisDeliveryStore;
import com.fairpix.webhooks.internal.StoredTenants;
import com.fairpix.webhooks.internal.WebhookSender;
import java.time.Clock;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import redis.clients.jedis.UnifiedJedis;

/** Builds webhook dispatchers on clients made elsewhere; the only way in from outside the package. It connects nothing itself. */
public final class WebhookDispatchers {
    private WebhookDispatchers() {}

    /**
     * A dispatcher, not started.
     *
     * @param events    a consumer in the dispatcher's group ({@link WebhooksService#GROUP}); the dispatcher subscribes it to
     *                  {@code fairpix.events} and closes it when it stops
     * @param redis     deliveries, tenants and jobs; stays open when the dispatcher stops
     * @param directory the node's tenant cache; stays open when the dispatcher stops
     * @param resolver  name resolution for the URL checks ({@link UrlGuard#SYSTEM_DNS} in production)
     * @param clock     wall time: due times, attempt timestamps, {@code Retry-After} dates
     * @param nanoTime  a monotonic nanosecond source: attempt durations, endpoint idle times
     */
    public static WebhookDispatcher create(DispatcherConfig config, Consumer<String, byte[]> events, UnifiedJedis redis, TenantDirectory directory,
                                           UrlGuard.Resolver resolver, Clock clock, LongSupplier nanoTime) {
        JobStore jobs = JobStore.redis(redis, config.retention().toSeconds());
        // No per-route cap in the pool: one route (host:port) may serve several tenants' endpoints, and
        // the per-endpoint slots already cap each tenant endpoint; a per-route cap would let one tenant's slow
        // attempts hold the connections another tenant's endpoint on the same host needs.
        WebhookSender sender = new WebhookSender(WebhookSender.TOTAL_TIMEOUT, null, config.maxInFlight(), config.maxInFlight(), clock, nanoTime);
        RedisDeliveryStore deliveries = new RedisDeliveryStore(redis, config.retention());
        deliveries.moveLegacyDue();
        return new DefaultWebhookDispatcher(config, events, deliveries,
                new StoredTenants(directory, new TenantStore(redis, clock)),
                (tenant, jobId) -> jobs.get(tenant, jobId).map(JobRecord::spec).map(JobSpec::webhookUrl),
                config.guard(resolver), sender, clock, nanoTime);
    }
}
