package com.fairpix.core.redis;

/**
 * Redis key layout. Per-tenant keys carry the tenant in a hash tag ({@code fp:{t42}:...}) so one
 * tenant's keys share a Redis Cluster slot; per-pool keys carry {@code {pool:<pool>}} (no tenant id
 * contains a colon), so the keys one transaction, {@code MGET} or script touches always share a
 * slot. Farm-wide keys without a tag are only ever touched one per command.
 */
public final class RedisKeys {
    private RedisKeys() {}

    public static String tenant(String tenant) { return "fp:{" + tenant + "}:tenant"; }

    /** How many sorted sets {@link #pendingSends(int)} spreads the pending sends over. */
    public static final int PENDING_SEND_SHARDS = 16;

    /**
     * Shard {@code shard} (0 ≤ shard < {@link #PENDING_SEND_SHARDS}) of the job messages whose send
     * to Kafka has not been seen to end (sorted set, member {@code tenant/jobId}, score = when the
     * send began, epoch ms): the ingest's orphan sweep fails a record still QUEUED here past
     * {@code ingest.orphan-after-seconds}. Each shard has its own hash tag, so on a Redis Cluster
     * the shards lie on 16 slots (spread over every third of the slot range) and not all on one.
     *
     * @throws IllegalArgumentException for a shard out of that range
     */
    public static String pendingSends(int shard) {
        if (shard < 0 || shard >= PENDING_SEND_SHARDS) throw new IllegalArgumentException("no pending-sends shard " + shard);
        return "fp:enqueue:pending:{pending-" + shard + "}";
    }

    /**
     * The one farm-wide set of pending sends that ingest nodes before the shards wrote; the sweep
     * moves what it finds there into the shards (a node of the older release may still be running
     * during a rolling upgrade).
     */
    public static String pendingSendsUnsharded() { return "fp:enqueue:pending"; }

    /** Sorted set (all scores 0, ordered by id) of every tenant id; farm-wide, touched only by admin operations. */
    public static String tenants() { return "fp:tenants"; }

    /** SHA-256 of an API key → tenant id. */
    public static String apiKey(String keyHash) { return "fp:apikey:" + keyHash; }

    /** Hash of a tenant's API keys: key id → JSON {hash, createdAt}. */
    public static String tenantKeys(String tenant) { return "fp:{" + tenant + "}:keys"; }

    /** Pub/sub channel announcing tenant and key changes to every node. */
    public static String tenantEvents() { return "fp:tenants:events"; }

    /** Counter incremented by every tenant or key change (the periodic check compares it). */
    public static String tenantVersion() { return "fp:tenants:version"; }

    /** Sorted set of recent changes: member {@code t:<tenant>} or {@code k:<keyHash>}, score = the change's version. */
    public static String tenantChanges() { return "fp:tenants:changes"; }

    /** The newest version dropped from the change log: a node behind it reloads everything. */
    public static String tenantChangesFloor() { return "fp:tenants:changes:floor"; }

    /** List of a suspended tenant's parked job messages, re-queued on activation. */
    public static String heldJobs(String tenant) { return "fp:{" + tenant + "}:held"; }

    /** Set of tenants with parked jobs. */
    public static String heldTenants() { return "fp:held"; }

    /** Lock held by the one worker re-queuing a tenant's parked jobs. */
    public static String heldLock(String tenant) { return "fp:{" + tenant + "}:held:lock"; }

    public static String job(String tenant, String jobId) { return "fp:{" + tenant + "}:job:" + jobId; }

    /** Sorted set of a tenant's job ids, scored by creation time in epoch milliseconds. */
    public static String jobIndex(String tenant) { return "fp:{" + tenant + "}:jobs"; }

    /** Job id → tenant id, for admin look-ups by id alone. */
    public static String jobOwner(String jobId) { return "fp:jobowner:" + jobId; }

    public static String idempotency(String tenant, String key) { return "fp:{" + tenant + "}:idem:" + key; }

    /** JSON of one webhook delivery (its payload, target, state and attempts). */
    public static String webhookDelivery(String tenant, String deliveryId) { return "fp:{" + tenant + "}:wh:" + deliveryId; }

    /** Sorted set of a tenant's delivery ids, scored by creation time in epoch milliseconds. */
    public static String webhookDeliveries(String tenant) { return "fp:{" + tenant + "}:wh:index"; }

    /** Sorted set of a tenant's dead-lettered delivery ids, scored by when they died, epoch milliseconds. */
    public static String webhookDead(String tenant) { return "fp:{" + tenant + "}:wh:dead"; }

    /** Set of a tenant's endpoint URLs disabled by a 410 Gone answer. */
    public static String webhookDisabled(String tenant) { return "fp:{" + tenant + "}:wh:disabled"; }

    /** The tenant's previous webhook secret after a rotation; expires when the overlap ends. */
    public static String webhookPreviousSecret(String tenant) { return "fp:{" + tenant + "}:wh:prev-secret"; }

    /**
     * Before per-tenant due sets: the one farm-wide sorted set of due deliveries, member
     * {@code tenant/deliveryId}. A dispatcher moves what it still holds into the per-tenant sets at
     * start ({@link #webhookTenantDue}); nothing writes it any more.
     */
    public static String webhookDueLegacy() { return "fp:wh:due"; }

    /**
     * Sorted set of one tenant's deliveries due for an attempt, member the delivery id, scored by the
     * due time in epoch milliseconds; a claimed member is re-scored to a lease, so a dispatcher that
     * dies mid-attempt leaves it to another. Hash tag {@code {wh}}, not the tenant's: it shares a
     * Redis Cluster slot with {@link #webhookDueTenants()}, so one script updates both.
     */
    public static String webhookTenantDue(String tenant) { return "fp:{wh}:due:" + tenant; }

    /**
     * Sorted set of the tenants with deliveries in their due set, scored by when the tenant is next
     * to be served (its oldest due time; after a claim served it, no earlier than that claim), epoch
     * milliseconds: one poll finds every tenant's due work and serves the tenants in turn.
     */
    public static String webhookDueTenants() { return "fp:{wh}:due-tenants"; }
    /**
     * Jobs accepted for a pool during one wall-clock second (epoch seconds), counted by every
     * ingest node with INCR and expiring after 2 minutes; the autoscaler sums them into QPS.
     * One small farm-wide key per second: at most one INCR per accepted job.
     */
    public static String submissionsPerSecond(String pool, long epochSecond) { return poolTag(pool) + ":qps:" + epochSecond; }
    /** Hash of a pool's measured service rate: worker replica id → JSON (see {@code PoolCapacity}). */
    public static String capacity(String pool) { return poolTag(pool) + ":capacity"; }
    /** Cost units (admission tokens) of the jobs accepted for {@code pool} in that second, all ingest nodes; a float, expires like the job count. */
    public static String submittedCostPerSecond(String pool, long epochSecond) { return poolTag(pool) + ":qps-cost:" + epochSecond; }

    /**
     * Sorted set of the tenants that submitted to a pool, scored by their last submission (epoch
     * seconds): the autoscaler's per-tenant view and ingest's sum of active tenants' guarantees.
     */
    public static String activeTenants(String pool) { return poolTag(pool) + ":active"; }
    /**
     * Demand asked in {@code pool} (admitted and refused), nanotokens per tenant, that ingest nodes
     * flushed in that second: a hash tenant → count, expiring after a few seconds; ingest's
     * {@code FarmCapacity} sums the last few to share the pool by demand (weighted max-min).
     */
    public static String demand(String pool, long epochSecond) { return poolTag(pool) + ":demand:" + epochSecond; }

    /**
     * Admission state of one tenant: six doubles packed by {@code admission.lua} (the guaranteed
     * token bucket, the ceiling bucket and the daily-quota counter, in nanotokens and microseconds).
     * Expires once every bucket in it would be full again anyway. (Named {@code adm-state} since it
     * stopped being a hash; the old hash is carried over once, see {@link #admissionBeforeUpgrade}.)
     */
    public static String admission(String tenant) { return "fp:{" + tenant + "}:adm-state"; }

    /**
     * The tenant's admission state as releases before 2026-12 kept it (a hash): read once by
     * {@code admission.lua} when {@link #admission} is missing, then deleted. Can go once no
     * such hash is younger than a day.
     */
    public static String admissionBeforeUpgrade(String tenant) { return "fp:{" + tenant + "}:adm"; }

    /**
     * Nanotokens a tenant owes for jobs that cost more CPU than admission charged (an integer,
     * {@link com.fairpix.core.admission.TrueUp}); taken out whole by {@code admission.lua} on the
     * tenant's next decision. Expires a day after the last debt.
     */
    public static String trueUp(String tenant) { return "fp:{" + tenant + "}:true-up"; }

    /** Sorted set of a tenant's concurrency leases: job id scored by the lease's expiry, epoch microseconds. */
    public static String admissionLeases(String tenant) { return "fp:{" + tenant + "}:leases"; }

    /**
     * A worker pool's borrowing bucket (one hash per pool, refilled at the pool's capacity C). Ingest
     * nodes lease chunks of it ({@code pool-lease.lua}); no per-decision script touches it, so a
     * decision's keys are the tenant's alone (docs/admission.md, "The pool lease").
     */
    public static String admissionPool(String pool) { return poolTag(pool) + ":adm"; }

    /**
     * Hash of one UTC day's measured usage: field = tenant id, value = its figures
     * ({@code UsageTotals.encode}). Hash tag {@code {usage:<yyyy-MM-dd>}}: the day's hour hashes and
     * counted set share its slot, so one script updates all three (one slot per day on a cluster,
     * written once per finished job). Expires {@code usage.retention-days} after the day.
     */
    public static String usageDay(java.time.LocalDate day) { return usageTag(day) + ":day"; }

    /** Hash of one UTC hour's measured usage (hour 0-23 of {@code day}), as {@link #usageDay}; expires {@code usage.hourly-retention-days} after the day. */
    public static String usageHour(java.time.LocalDate day, int hour) { return usageTag(day) + ":h:" + (hour < 10 ? "0" : "") + hour; }

    /** Set of the ids of the jobs counted into {@link #usageDay} (each job once); expires {@code jobs.retention-seconds} after the day. */
    public static String usageCounted(java.time.LocalDate day) { return usageTag(day) + ":counted"; }

    private static String usageTag(java.time.LocalDate day) { return "fp:{usage:" + day + "}"; }

    /** {@code fp:{pool:<pool>}}: the prefix, and Redis Cluster hash tag, of a pool's keys. */
    private static String poolTag(String pool) { return "fp:{pool:" + pool + "}"; }

    /**
     * Pub/sub channel of overload state: each ingest node publishes its breakers, ramp start and
     * shedding levels on every change and twice a second, so every node holds the farm view.
     */
    public static String controlChannel() { return "fp:control"; }

    /** One ingest node's last published overload state (JSON), expiring a few seconds after the node stops. */
    public static String node(String nodeId) { return "fp:node:" + nodeId; }

    /** Set of ingest node ids that registered (entries whose {@link #node} key expired are pruned by readers). */
    public static String nodes() { return "fp:nodes"; }
}
