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
 * index, the farm-wide due set (a retry is a due time there, so it survives any dispatcher
 * restart), the endpoints a 410 disabled, and the previous secret during a rotation's overlap.
 */
public interface DeliveryStore {

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
    boolean create(WebhookDelivery d);

    Optional<WebhookDelivery> get(String tenant, String id);

    /** Replaces the stored record (its schedule is unchanged). */
    void save(WebhookDelivery d);

    /** A tenant's deliveries, newest first, created before {@code beforeMillis} (epoch ms, exclusive; null = now), at most {@code limit}. */
    List<WebhookDelivery> list(String tenant, Long beforeMillis, int limit);

    /** Makes the delivery due at {@code at}. */
    void schedule(String tenant, String id, Instant at);

    /** Removes the delivery from the due set (it succeeded or died). */
    void unschedule(String tenant, String id);

    /**
     * Claims up to {@code max} deliveries due at {@code now}: each is made due again at
     * {@code now + lease}, so if this dispatcher dies before finishing, another one takes it then.
     *
     * @return {@code tenant/deliveryId} members
     */
    List<String> claimDue(Instant now, Duration lease, int max);

    /** Deliveries in the due set, due now or later. */
    long pending();

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
