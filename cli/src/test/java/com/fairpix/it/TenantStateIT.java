package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.core.pool.Pool;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.webhooks.DeliveryStore;
import com.fairpix.webhooks.WebhookDelivery;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Issue 33, "every per-tenant key bounded or expiring; deleting a tenant removes its state": a
 * tenant is created and used (jobs submitted, so admission state, leases,
 * job records and the active-tenant entry exist; webhook deliveries, a dead letter, a disabled URL,
 * a previous secret and parked jobs as the dispatcher and a worker write them), then deleted over
 * the admin API. A scan of Redis then finds only the documented keys of that tenant, each expiring
 * but its tombstone, and no farm-wide set still names it (docs/hostile-tenants.md, Per-tenant state).
 */
class TenantStateIT {
    @RegisterExtension static final Farm.Ingest farm = new Farm.Ingest();

    /** What a deleted tenant leaves, each expiring on its own: its job records, job index, idempotency claims. */
    private static final Pattern KEPT = Pattern.compile("fp:\\{[^}]+}:(job:.+|jobs|idem:.+)");

    @Test
    void aDeletedTenantLeavesOnlyItsTombstoneAndExpiringJobRecords() throws Exception {
        Farm.Client client = farm.client();
        String tenant = Farm.tenantId("it-purge");
        String key = client.createTenant(tenant, Map.of());
        byte[] image = Farm.smallJpeg(64, 48, 3);
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = client.submitRaw(key, image, "image/jpeg", QueueScenariosIT.THUMB);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        }
        try (UnifiedJedis redis = Redis.connect(Farm.config().get(Setting.REDIS_URL))) {
            DeliveryStore deliveries = DeliveryStore.redis(redis, Duration.ofDays(7));
            Instant now = Instant.now();
            for (int i = 0; i < 3; i++) {
                deliveries.create(WebhookDelivery.pending("d" + i, tenant, "j" + i, "job.done", "https://example.com/hook", "{}", now), 100);
            }
            deliveries.markDead(tenant, "d0", now);
            deliveries.disable(tenant, "https://example.com/gone");
            deliveries.keepPreviousSecret(tenant, "whsec_old", Duration.ofHours(1));
            // A worker parks a suspended tenant's job (HeldJobs) like this:
            redis.rpush(RedisKeys.heldJobs(tenant), "{}");
            redis.sadd(RedisKeys.heldTenants(), tenant);
            assertThat(tenantKeys(redis, tenant)).as("used: state exists").contains(RedisKeys.admission(tenant),
                    RedisKeys.admissionLeases(tenant), RedisKeys.webhookDeliveries(tenant), RedisKeys.webhookDead(tenant));
            assertThat(redis.zscore(RedisKeys.activeTenants(Pool.GPU.wire()), tenant)).isNotNull(); // THUMB asks for gpu
            assertThat(redis.zscore(RedisKeys.webhookDueTenants(), tenant)).isNotNull();

            HttpResponse<String> deleted = client.send("DELETE", "/admin/v1/tenants/" + tenant, null);
            assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
            assertThat(Json.mapper().readTree(deleted.body()).get("state").asText()).isEqualTo("DELETED");

            List<String> left = tenantKeys(redis, tenant);
            assertThat(left).as("the tombstone stays").contains(RedisKeys.tenant(tenant));
            for (String k : left) {
                if (k.equals(RedisKeys.tenant(tenant))) continue;
                assertThat(k).as("a documented key").matches(KEPT);
                assertThat(redis.ttl(k)).as("%s expires", k).isPositive();
            }
            assertThat(redis.exists(RedisKeys.webhookTenantDue(tenant))).isFalse();
            assertThat(redis.zscore(RedisKeys.webhookDueTenants(), tenant)).isNull();
            assertThat(redis.sismember(RedisKeys.heldTenants(), tenant)).isFalse();
            for (Pool p : Pool.values()) assertThat(redis.zscore(RedisKeys.activeTenants(p.wire()), tenant)).isNull();
            HttpResponse<String> after = client.submitRaw(key, image, "image/jpeg", QueueScenariosIT.THUMB);
            BadInputIT.assertProblem(after, 401, "unauthorized");
        }
    }

    /**
     * Every key with the tenant's hash tag (a pattern with a hash tag: a Redis Cluster client scans
     * the one node holding that slot). The keys outside it that name the tenant (its due set, the
     * farm-wide sets' members) are checked one by one above.
     */
    static List<String> tenantKeys(UnifiedJedis redis, String tenant) {
        List<String> out = new ArrayList<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = redis.scan(cursor, new ScanParams().match("fp:{" + tenant + "}:*").count(1000));
            for (String k : page.getResult()) if (!out.contains(k)) out.add(k);
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return out;
    }
}
