package com.fairpix.core.tenant;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;

/**
 * A node's local view of tenants and API keys, so the request path does not read Redis for them.
 *
 * <p>Entries load on first use and are kept current two ways: a Redis pub/sub subscriber applies
 * each announced change at once, and a poller compares the farm-wide change counter every
 * {@code pollMillis} and replays the change log from the last version it applied, healing any
 * message the subscriber missed (pub/sub is at-most-once). A full reload every minute covers a
 * writer that crashed between writing and announcing.
 *
 * <p>A load races with a change announced while it reads Redis (a key revoked after the read, before
 * the insert): each change bumps an epoch, and a load caches what it read only if no change was
 * applied meanwhile; otherwise it answers from what it read and the next request reads again. So a
 * revoked key stops working as soon as the revocation is applied, never a reload (~60 s) later.
 *
 * <p>Keys Redis does not know are remembered too ({@link UnknownKeys}: at most
 * {@link #UNKNOWN_KEYS} of them, each for {@link #UNKNOWN_KEY_TTL}), so a client sending the same
 * unknown key costs no Redis read per request. A key created afterwards works as soon as its
 * creation is applied here (the same announcement, {@code k:<hash>}, that revokes a key drops the
 * negative entry, on every node), and with the same epoch rule: a read that raced with a change is
 * not remembered. The TTL only backs up a lost announcement, like the minute's full reload.
 */
public final class TenantDirectory implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TenantDirectory.class);

    private final TenantStore store;
    private final UnifiedJedis redis;
    private final long pollMillis;
    private final Map<String, Tenant> tenants = new ConcurrentHashMap<>();
    private final Map<String, String> keyOwners = new ConcurrentHashMap<>();
    private final List<Consumer<Tenant>> listeners = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("fairpix-tenant-poll").unstarted(r));
    private final Subscriber subscriber = new Subscriber();
    private volatile long appliedVersion = -1;
    /** Bumped by every change applied (and every reload); a load that saw it move does not cache. */
    private final java.util.concurrent.atomic.AtomicLong epoch = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean closed;
    private Thread subscriberThread;
    private final UnknownKeys unknownKeys;

    /** Most unknown keys a node remembers. */
    public static final int UNKNOWN_KEYS = 10_000;
    /** How long a node remembers an unknown key at most. */
    public static final java.time.Duration UNKNOWN_KEY_TTL = java.time.Duration.ofSeconds(60);

    /**
     * @param redis      used for the pub/sub subscription only (one connection, held; see
     *                   {@link com.fairpix.core.redis.Redis#subscriber}); closed with the directory
     * @param pollMillis interval of the version check, milliseconds
     */
    public TenantDirectory(TenantStore store, UnifiedJedis redis, long pollMillis) {
        this(store, redis, pollMillis, UNKNOWN_KEYS, UNKNOWN_KEY_TTL, com.fairpix.core.time.SystemTime.nanos());
    }

    /**
     * @param unknownKeys   most unknown keys remembered
     * @param unknownKeyTtl how long an unknown key is remembered at most
     * @param nanos         a monotonic nanosecond source (the unknown keys' TTL)
     */
    public TenantDirectory(TenantStore store, UnifiedJedis redis, long pollMillis, int unknownKeys, java.time.Duration unknownKeyTtl,
                           java.util.function.LongSupplier nanos) {
        this.store = store;
        this.redis = redis;
        this.pollMillis = pollMillis;
        this.unknownKeys = new UnknownKeys(unknownKeys, unknownKeyTtl.toNanos(), nanos);
    }

    /** Starts the subscriber and the poller. */
    public TenantDirectory start() {
        try {
            appliedVersion = store.version();
        } catch (RuntimeException e) {
            log.warn("Redis unreachable at start; tenant changes will be picked up once it answers: {}", e.toString());
        }
        subscriberThread = Thread.ofPlatform().daemon().name("fairpix-tenant-events").start(() -> com.fairpix.core.redis.Subscription.keep(redis, subscriber,
                com.fairpix.core.redis.RedisKeys.tenantEvents(), java.time.Duration.ofSeconds(5), () -> closed, "tenant events"));
        poller.scheduleWithFixedDelay(this::poll, pollMillis, pollMillis, TimeUnit.MILLISECONDS);
        poller.scheduleWithFixedDelay(this::reloadAll, 60, 60, TimeUnit.SECONDS);
        return this;
    }

    /** Called with the new value whenever a cached tenant changes (not for first loads). */
    public void onChange(Consumer<Tenant> listener) {
        listeners.add(listener);
    }

    /**
     * The tenant, from the cache or loaded once from Redis.
     *
     * @throws redis.clients.jedis.exceptions.JedisException when it must be loaded and Redis is down
     */
    public Optional<Tenant> byId(String id) {
        Tenant cached = tenants.get(id);
        if (cached != null) return Optional.of(cached);
        long seen = epoch.get();
        Optional<Tenant> loaded = store.get(id);
        loaded.ifPresent(t -> {
            // Cache only if no change was applied while we read; else the change may be older than the put.
            synchronized (epoch) {
                if (epoch.get() == seen) tenants.putIfAbsent(t.id(), t);
            }
        });
        return loaded;
    }

    /** The tenant owning this API key; empty for a malformed, unknown or revoked key. */
    public Optional<Tenant> byApiKey(String key) {
        if (!ApiKeys.looksValid(key)) return Optional.empty();
        String hash = ApiKeys.hash(key);
        String owner = keyOwners.get(hash);
        if (owner == null) {
            if (unknownKeys.contains(hash)) return Optional.empty();
            long seen = epoch.get();
            Optional<String> found = store.tenantForKeyHash(hash);
            if (found.isEmpty()) {
                synchronized (epoch) {
                    if (epoch.get() == seen) unknownKeys.add(hash);
                }
                return Optional.empty();
            }
            Optional<Tenant> tenant = byId(found.get());
            // Reuse the tenant's own id string: one copy per tenant, however many keys. Not cached when
            // a change (e.g. this key's revocation) was applied while we read: that change may predate the put.
            tenant.ifPresent(t -> {
                synchronized (epoch) {
                    if (epoch.get() == seen) keyOwners.put(hash, t.id());
                }
            });
            return tenant;
        }
        return byId(owner);
    }

    /** Unknown keys remembered on this node now. */
    public int unknownKeys() {
        return unknownKeys.size();
    }

    /** Tenants cached on this node. */
    public int size() {
        return tenants.size();
    }

    private void apply(String member) {
        synchronized (epoch) {
            epoch.incrementAndGet();
        }
        if (member.startsWith("t:")) {
            String id = member.substring(2);
            if (!tenants.containsKey(id)) return; // not used here: it loads fresh when it is
            Optional<Tenant> fresh = store.get(id);
            if (fresh.isEmpty()) {
                tenants.remove(id);
                return;
            }
            Tenant old = tenants.put(id, fresh.get());
            if (old == null || old.version() != fresh.get().version()) listeners.forEach(l -> l.accept(fresh.get()));
        } else if (member.startsWith("k:")) {
            keyOwners.remove(member.substring(2));
            unknownKeys.remove(member.substring(2));
        }
    }

    private void poll() {
        try {
            long current = store.version();
            long applied = appliedVersion;
            if (current == applied) return;
            List<String> changes = applied < 0 ? null : store.changesSince(applied);
            if (changes == null) {
                reloadAll();
            } else {
                for (String member : changes) apply(member);
            }
            appliedVersion = current;
        } catch (RuntimeException e) {
            log.debug("tenant version check failed: {}", e.toString());
        }
    }

    private void reloadAll() {
        try {
            synchronized (epoch) {
                epoch.incrementAndGet();
            }
            keyOwners.clear();
            unknownKeys.clear();
            for (String id : List.copyOf(tenants.keySet())) apply("t:" + id);
        } catch (RuntimeException e) {
            log.debug("tenant reload failed: {}", e.toString());
        }
    }

    private final class Subscriber extends JedisPubSub {
        @Override
        public void onMessage(String channel, String message) {
            int space = message.indexOf(' ');
            if (space < 0) return;
            try {
                apply(message.substring(space + 1));
            } catch (RuntimeException e) {
                log.debug("cannot apply tenant change {}: {}", message, e.toString());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        poller.shutdownNow();
        try {
            if (subscriber.isSubscribed()) subscriber.unsubscribe();
        } catch (RuntimeException ignored) {
            // connection already gone
        }
        if (subscriberThread != null) subscriberThread.interrupt();
        redis.close();
    }
}
