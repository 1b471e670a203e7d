package com.fairpix.webhooks;

import com.fairpix.webhooks.internal.RedisDeliveryStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;

/**
 * Webhook deliveries and their schedule, shared by the admin API (which lists and redelivers) and
 * the dispatcher (which attempts): one record per delivery, a per-tenant index and dead-letter
 * index, a due set per tenant (a retry is a due time there, so it survives any dispatcher restart)
 * with an index of the tenants that have due work (so a claim serves tenants in turn), the
 * endpoints a 410 disabled, and the previous secret during a rotation's overlap.
 */
public interface DeliveryStore {

    /** What {@link #create(WebhookDelivery, long)} made of a new delivery. */
    enum Created {
        /** stored and due at its {@code nextAttemptAt} */
        QUEUED,
        /** a delivery with this id existed; nothing changed */
        DUPLICATE,
        /** stored but not made due: the tenant already had its cap of pending deliveries (the caller dead-letters it) */
        OVER_CAP
    }

    /** The store in Redis ({@code RedisKeys.webhook*}); {@code retention} is how long a record is kept after its last change. */
    static DeliveryStore redis(UnifiedJedis redis, Duration retention) {
        return new RedisDeliveryStore(redis, retention);
    }

    /**
     * Stores a new delivery and makes it due at its {@code nextAttemptAt}, unless one with this id
     * exists: an event consumed twice (a re-run job, a redelivered Kafka record) yields one delivery.
     *
     * @return false when the delivery already existed
     */
    default boolean create(WebhookDelivery d) {
        return create(d, Long.MAX_VALUE) == Created.QUEUED;
    }

    /**
     * Stores a new delivery unless one with this id exists, and makes it due at its
     * {@code nextAttemptAt} unless its tenant already has {@code maxPending} deliveries in its due set
     * (checked and added atomically, so several dispatchers never push a tenant past the cap).
     */
    Created create(WebhookDelivery d, long maxPending);

    Optional<WebhookDelivery> get(String tenant, String id);

    /** Replaces the stored record (its schedule is unchanged). */
    void save(WebhookDelivery d);

    /** A tenant's deliveries, newest first, created before {@code beforeMillis} (epoch ms, exclusive; null = now), at most {@code limit}. */
    List<WebhookDelivery> list(String tenant, Long beforeMillis, int limit);

    /** Makes the delivery due at {@code at} (never refused by the cap: it is a retry, a put-off or an operator's redelivery). */
    void schedule(String tenant, String id, Instant at);

    /** Removes the delivery from the due set (it succeeded or died). */
    void unschedule(String tenant, String id);

    /**
     * Tenants with a delivery due at {@code now}, at most {@code max}: first those waiting longest
     * (by their oldest due delivery), then those a claim served most recently.
     */
    List<String> dueTenants(Instant now, int max);

    /**
     * Claims up to {@code max} of the tenant's deliveries due at {@code now}, oldest first: each is
     * made due again at {@code now + lease}, so if this dispatcher dies before finishing, another one
     * takes it then. The tenant then ranks in {@link #dueTenants} behind tenants still waiting.
     *
     * @return delivery ids
     */
    List<String> claimDue(String tenant, Instant now, Duration lease, int max);

    /** Deliveries in the due sets, due now or later, all tenants. */
    long pending();

    /** The tenant's deliveries in its due set, due now or later. */
    long pending(String tenant);

    /** Puts the delivery in the tenant's dead-letter index, as dead since {@code at}. */
    void markDead(String tenant, String id, Instant at);

    void clearDead(String tenant, String id);

    /** Ids of the tenant's dead-lettered deliveries that died at or after {@code since}. */
    List<String> deadSince(String tenant, Instant since);

    /** Stops deliveries to {@code url} of the tenant (it answered 410 Gone). */
    void disable(String tenant, String url);

    boolean isDisabled(String tenant, String url);

    void enable(String tenant, String url);

    /** Re-enables every endpoint of the tenant (its webhook URL changed). */
    void enableAll(String tenant);

    /** The previous secret while a rotation's overlap lasts. */
    Optional<String> previousSecret(String tenant);

    /** Keeps {@code secret} as the previous one for {@code overlap}; nothing when either is null or zero. */
    void keepPreviousSecret(String tenant, String secret, Duration overlap);
}
