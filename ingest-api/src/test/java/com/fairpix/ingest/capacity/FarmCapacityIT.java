package com.fairpix.ingest.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fairpix.core.capacity.PoolCapacity;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantState;
import com.fairpix.ingest.admission.AdmissionConfig;
import com.fairpix.ingest.admission.AdmissionContract;
import com.fairpix.ingest.admission.FarmShare;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * What admission hands out per pool, read from the real Redis: the workers' published figures and
 * the active-tenant set that accepted jobs keep. A pool of its own per test, so other tests'
 * workers and tenants do not count.
 */
class FarmCapacityIT {
    static UnifiedJedis redis;

    @BeforeAll
    static void connect() {
        String url = System.getenv("FAIRPIX_REDIS_URL");
        if (url == null) {
            String why = "FAIRPIX_REDIS_URL is not set: run scripts/test (or scripts/stack up and source .fairpix/stack.env)";
            if (System.getenv("FAIRPIX_REQUIRE_STACK") != null) Assertions.fail(why);
            Assumptions.abort(why);
        }
        redis = com.fairpix.core.redis.Redis.connect(url);
    }

    @AfterAll
    static void close() {
        if (redis != null) redis.close();
    }

    private static Tenant tenant(String id, double rate, TenantState state) {
        Tenant t = AdmissionContract.tenant(id, rate, rate);
        return new Tenant(t.id(), state, t.weight(), t.rate(), t.burst(), t.dailyQuota(), t.maxConcurrentJobs(), t.maxUploadBytes(), t.maxPixels(),
                t.allowedFormats(), null, null, t.pool(), 1);
    }

    @Test
    void theMeasuredRateTimesHeadroomIsTheCapacityAndActiveGuaranteesAreScaledToTheMeasuredRate() {
        String pool = "it-" + UUID.randomUUID().toString().substring(0, 8);
        Instant now = Instant.now();
        Clock clock = Clock.fixed(now, ZoneOffset.UTC);
        Map<String, Tenant> tenants = Map.of(
                "a", tenant("a", 30, TenantState.ACTIVE),
                "b", tenant("b", 20, TenantState.ACTIVE),
                "suspended", tenant("suspended", 1000, TenantState.SUSPENDED),
                "idle", tenant("idle", 1000, TenantState.ACTIVE));
        FarmCapacity farm = new FarmCapacity(redis, id -> Optional.ofNullable(tenants.get(id)), List.of(pool), AdmissionConfig.MEASURED, 1.2, clock);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        farm.bindTo(meters);
        try {
            farm.refresh();
            assertThat(farm.of(pool)).as("nothing measured yet: no capacity, guarantees as configured").isEqualTo(FarmShare.Share.NONE);

            PoolCapacity capacity = new PoolCapacity(redis);
            capacity.publish(pool, "w1", 6, 1, now);
            capacity.publish(pool, "w2", 4, 1, now);
            String active = RedisKeys.activeTenants(pool);
            long s = now.getEpochSecond();
            redis.zadd(active, Map.of("a", (double) s - 5, "b", (double) s, "suspended", (double) s, "unknown", (double) s,
                    "idle", (double) (s - FarmCapacity.ACTIVE_WINDOW.toSeconds() - 5)));
            farm.refresh();
            FarmCapacity.PoolView v = farm.view(pool);
            assertThat(v.measured()).isEqualTo(10.0);
            assertThat(v.replicas()).isEqualTo(2);
            assertThat(v.share().capacity()).as("10 cost units/s × headroom 1.2").isCloseTo(12.0, within(1e-9));
            assertThat(v.guarantees()).as("a and b: not the suspended, unknown or idle tenants").isEqualTo(50.0);
            assertThat(v.activeTenants()).isEqualTo(2);
            assertThat(v.guaranteeCapacity()).as("guarantees are scaled to what the pool does, without the headroom").isEqualTo(10.0);
            assertThat(v.share().guaranteeScale()).isCloseTo(10 / 50.0, within(1e-12));
            assertThat(v.refreshedAt()).isEqualTo(now.toEpochMilli());
            assertThat(v.overcommit()).as("guarantees ÷ measured (not ÷ headroom)").isCloseTo(5.0, within(1e-12));
            assertThat(meters.get("fairpix.admission.overcommit.ratio").tag("pool", pool).gauge().value()).isCloseTo(5.0, within(1e-12));
            assertThat(meters.get("fairpix.admission.capacity.tokens.per.second").tag("pool", pool).gauge().value()).isCloseTo(12.0, within(1e-9));

            // Every worker gone: the last measured size stays (the backlog bounds stop an undrained queue).
            capacity.withdraw(pool, "w1");
            capacity.withdraw(pool, "w2");
            farm.refresh();
            assertThat(farm.view(pool).measured()).isZero();
            assertThat(farm.of(pool).capacity()).isCloseTo(12.0, within(1e-9));
        } finally {
            farm.close();
            redis.del(RedisKeys.activeTenants(pool), RedisKeys.capacity(pool));
        }
    }

    @Test
    void aPinnedCapacityWinsAndZeroTurnsItOff() {
        String pool = "it-" + UUID.randomUUID().toString().substring(0, 8);
        Instant now = Instant.now();
        Clock clock = Clock.fixed(now, ZoneOffset.UTC);
        Map<String, Tenant> tenants = Map.of("a", tenant("a", 300, TenantState.ACTIVE));
        try {
            new PoolCapacity(redis).publish(pool, "w1", 10, 1, now);
            redis.zadd(RedisKeys.activeTenants(pool), now.getEpochSecond(), "a");
            try (FarmCapacity pinned = new FarmCapacity(redis, id -> Optional.ofNullable(tenants.get(id)), List.of(pool), 100, 1.2, clock)) {
                pinned.refresh();
                assertThat(pinned.of(pool).capacity()).isEqualTo(100.0);
                assertThat(pinned.of(pool).guaranteeScale()).as("300 guaranteed on a pinned 100").isCloseTo(1 / 3.0, within(1e-12));
            }
            try (FarmCapacity off = new FarmCapacity(redis, id -> Optional.ofNullable(tenants.get(id)), List.of(pool), 0, 1.2, clock)) {
                off.refresh();
                assertThat(off.of(pool)).isEqualTo(FarmShare.Share.NONE);
                assertThat(off.view(pool).overcommit()).as("still shown").isCloseTo(30.0, within(1e-12));
            }
        } finally {
            redis.del(RedisKeys.activeTenants(pool), RedisKeys.capacity(pool));
        }
    }
}
