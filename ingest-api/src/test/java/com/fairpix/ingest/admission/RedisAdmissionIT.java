package com.fairpix.ingest.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.admission.AdmissionLeases;
import com.fairpix.core.admission.TrueUp;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.time.ManualClock;
import com.fairpix.ingest.admission.internal.RedisAdmission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * The admission scenarios on the real Redis of {@code scripts/stack} (FAIRPIX_REDIS_URL), with
 * time passed to the script by hand; then what needs Redis's own clock and real concurrency:
 * 5,000 decisions from 64 threads at one round trip each, and two nodes sharing one tenant's limits.
 */
class RedisAdmissionIT extends AdmissionContract {
    static UnifiedJedis redis;
    static String url;

    @BeforeAll
    static void connect() {
        url = com.fairpix.core.redis.StackRedis.url();
        redis = pooled(url, 8);
    }

    @AfterAll
    static void close() {
        if (redis != null) redis.close();
    }

    /** A client with {@code connections} pooled connections; on a cluster, the production client. */
    static UnifiedJedis pooled(String redisUrl, int connections) {
        if (Redis.isCluster(redisUrl)) return Redis.connect(redisUrl);
        java.net.URI uri = java.net.URI.create(redisUrl);
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(connections);
        pool.setMaxIdle(connections);
        return new JedisPooled(pool, new HostAndPort(uri.getHost(), uri.getPort()),
                DefaultJedisClientConfig.builder().connectionTimeoutMillis(2000).socketTimeoutMillis(2000).build());
    }

    @Override
    protected Admission node(AdmissionConfig config, FarmShare share, ManualClock clock) {
        return RedisAdmission.onTestClock(redis, config, share, clock::micros);
    }

    @Override
    protected boolean cheapDecisions() { return false; }

    @Override
    protected void resetPool() {
        // One key per DEL: two pools are two slots on a cluster.
        redis.del(RedisKeys.admissionPool("cpu"));
        redis.del(RedisKeys.admissionPool("gpu"));
    }

    @Test
    void fiveThousandConcurrentRequestsAllAdmittedOneRoundTripEach() throws Exception {
        Tenant t = tenant(id("a6"), 10_000, 10_000);
        try (UnifiedJedis wide = pooled(url, 64)) {
            RedisAdmission a = new RedisAdmission(wide, AdmissionConfig.defaults(), System::nanoTime);
            a.decide(tenant(id("warm"), 1, 1), tokens(1), null); // loads the script
            long evalBefore = calls(wide, "evalsha") + calls(wide, "eval");
            ExecutorService pool = Executors.newFixedThreadPool(64);
            AtomicInteger ok = new AtomicInteger();
            List<Future<?>> futures = new ArrayList<>();
            long start = System.nanoTime();
            for (int i = 0; i < 5000; i++) {
                futures.add(pool.submit(() -> { if (a.decide(t, tokens(1), null).allowed()) ok.incrementAndGet(); }));
            }
            for (Future<?> f : futures) f.get(); // an error fails the test
            long ms = (System.nanoTime() - start) / 1_000_000;
            pool.shutdown();
            assertThat(ok.get()).isEqualTo(5000);
            assertThat(calls(wide, "evalsha") + calls(wide, "eval") - evalBefore).as("one script call per decision").isEqualTo(5000);
            System.out.println("5000 decisions from 64 threads in " + ms + " ms");
        }
    }

    @Test
    void twoNodesSharingRedisNeverAdmitMoreThanThePolicyAllows() throws Exception {
        Tenant t = tenant(id("two"), 50, 20, 1_000_000, 3);
        try (UnifiedJedis r1 = pooled(url, 8); UnifiedJedis r2 = pooled(url, 8)) {
            Admission[] nodes = {new RedisAdmission(r1, AdmissionConfig.defaults(), System::nanoTime), new RedisAdmission(r2, AdmissionConfig.defaults(), System::nanoTime)};
            ExecutorService pool = Executors.newFixedThreadPool(16);
            AtomicInteger admitted = new AtomicInteger();
            AtomicInteger holding = new AtomicInteger();
            AtomicInteger maxHolding = new AtomicInteger();
            long[] firstLast = {Long.MAX_VALUE, 0};
            long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < 16; w++) {
                Admission node = nodes[w % 2];
                int worker = w;
                futures.add(pool.submit(() -> {
                    for (int i = 0; System.nanoTime() < end; i++) {
                        String job = "job-" + worker + "-" + i;
                        Decision d = node.decide(t, tokens(1), job);
                        synchronized (firstLast) {
                            firstLast[0] = Math.min(firstLast[0], d.nowMicros());
                            firstLast[1] = Math.max(firstLast[1], d.nowMicros());
                        }
                        if (d.allowed()) {
                            admitted.incrementAndGet();
                            maxHolding.accumulateAndGet(holding.incrementAndGet(), Math::max);
                            holding.decrementAndGet();
                            node.release(t.id(), job);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) f.get();
            pool.shutdown();
            double seconds = (firstLast[1] - firstLast[0]) / 1e6;
            assertThat(admitted.get()).as("burst 20 + 50/s × %.3f s (Redis TIME)", seconds).isLessThanOrEqualTo(20 + (int) Math.floor(50 * seconds));
            assertThat(admitted.get()).isGreaterThanOrEqualTo(20 + (int) (50 * seconds * 0.8));
            assertThat(maxHolding.get()).as("concurrency cap 3 across both nodes").isLessThanOrEqualTo(3);
        }
    }

    @Test
    void idleTenantsStateExpiresSoMemoryStaysBounded() {
        RedisAdmission a = new RedisAdmission(redis, AdmissionConfig.defaults(), System::nanoTime);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            Tenant t = tenant(id("a14"), 1000, 2, 1_000_000_000L, 1_000_000);
            ids.add(t.id());
            a.decide(t, tokens(1), null);
        }
        for (String id : ids) {
            long pttl = redis.pttl(RedisKeys.admission(id));
            // 1 token short of a 2-token bucket at 1000/s: full again in 1 ms; kept 1 s more, but the quota day's counter keeps it until midnight.
            assertThat(pttl).isPositive().isLessThanOrEqualTo(86_400_000L + 1000);
        }
        Tenant quotaless = tenant(id("a14q"), 1000, 2, 1_000_000_000L, 1_000_000);
        a.decide(quotaless, tokens(1), null);
        assertThat(redis.strlen(RedisKeys.admission(quotaless.id()))).as("a tenant's state: six packed doubles").isEqualTo(48);
    }

    /**
     * An upgrade keeps today's quota: a tenant whose state is still the old hash (fp:{t}:adm, as
     * releases before the packed layout wrote it) with 4 of its 5 jobs counted today gets one more,
     * not a fresh day; the hash is then gone, its state carried into the new key.
     */
    @Test
    void theHashLayoutOfAnEarlierReleaseIsCarriedOverOnce() {
        ManualClock c = new ManualClock(java.time.Instant.parse("2026-12-01T12:00:00Z"));
        RedisAdmission a = RedisAdmission.onTestClock(redis, AdmissionConfig.defaults(), FarmShare.fixed(AdmissionConfig.defaults().farmCapacity()), c::micros);
        Tenant t = tenant(id("upg"), 1000, 1000, 5, 1_000_000);
        long day = c.micros() / 86_400_000_000L;
        redis.hset(RedisKeys.admissionBeforeUpgrade(t.id()), java.util.Map.of("p", Long.toString(1000L * Limits.NANO), "pt", Long.toString(c.micros()),
                "d", Long.toString(day), "dc", "4"));
        assertThat(a.decide(t, tokens(1), null).allowed()).as("the 5th job of today").isTrue();
        assertThat(redis.exists(RedisKeys.admissionBeforeUpgrade(t.id()))).as("the old hash is gone").isFalse();
        assertThat(redis.exists(RedisKeys.admission(t.id()))).as("its state lives in the new key").isTrue();
        Decision d = a.decide(t, tokens(1), null);
        assertThat(d.allowed()).as("5 of 5 jobs counted today, 4 of them before the upgrade").isFalse();
        assertThat(d.violated()).containsExactly(Policy.DAILY_QUOTA);
    }

    /**
     * The leases the admission script takes are the ones {@link AdmissionLeases} counts and frees:
     * the worker and the autoscaler read admission's Redis layout through it alone.
     */
    @Test
    void aJobsLeaseIsLiveThroughAdmissionLeasesUntilReleasedOrExpired() {
        ManualClock c = new ManualClock(java.time.Instant.parse("2026-12-01T12:00:00Z"));
        RedisAdmission a = RedisAdmission.onTestClock(redis, AdmissionConfig.defaults(), FarmShare.fixed(AdmissionConfig.defaults().farmCapacity()), c::micros);
        AdmissionLeases leases = new AdmissionLeases(redis);
        Tenant t = tenant(id("lease"), 1000, 1000);
        assertThat(a.decide(t, tokens(1), "job-1").allowed()).isTrue();
        assertThat(a.decide(t, tokens(1), "job-2").allowed()).isTrue();
        assertThat(leases.live(t.id(), c.instant())).as("one lease per admitted job").isEqualTo(2);
        leases.release(t.id(), "job-1");
        assertThat(leases.live(t.id(), c.instant())).as("after the worker frees job-1").isEqualTo(1);
        assertThat(leases.live(t.id(), c.instant().plus(AdmissionConfig.defaults().leaseTtl()).plusSeconds(1)))
                .as("past the lease TTL").isZero();
    }

    /**
     * What a worker records as owed for a job that cost more CPU than it was charged ({@link TrueUp})
     * is taken out whole by the tenant's next decision: a tenant with 10 tokens in its bucket that
     * owes 9.5 is refused a 1-token job, the debt key is gone, and the refusal kept the debit (0.5
     * tokens left: refused again; 100 ms later, at 10 tokens/s, 1.5: admitted).
     */
    @Test
    void aTrueUpDebtIsPaidOnTheTenantsNextDecisionEvenWhenItIsRefused() {
        ManualClock c = new ManualClock(java.time.Instant.parse("2026-12-01T12:00:00Z"));
        RedisAdmission a = RedisAdmission.onTestClock(redis, AdmissionConfig.defaults(), FarmShare.fixed(AdmissionConfig.defaults().farmCapacity()), c::micros);
        Tenant t = tenant(id("trueup"), 10, 10);
        new TrueUp(redis).owe(t.id(), 9.5);
        assertThat(redis.pttl(RedisKeys.trueUp(t.id()))).as("a debt expires if never claimed").isPositive();
        Decision refused = a.decide(t, tokens(1), null);
        assertThat(refused.allowed()).as("10 tokens less the 9.5 owed cannot pay 1").isFalse();
        assertThat(refused.violated()).containsExactly(Policy.RATE);
        assertThat(redis.exists(RedisKeys.trueUp(t.id()))).as("the debt was taken out").isFalse();
        assertThat(a.decide(t, tokens(1), null).allowed()).as("the refusal kept the debit: still 0.5 tokens").isFalse();
        c.advance(java.time.Duration.ofMillis(100));
        assertThat(a.decide(t, tokens(1), null).allowed()).as("refilled by 1 token in 100 ms at 10/s").isTrue();
    }

    /** Calls of {@code command} Redis counted, summed over every node of a cluster. */
    static long calls(UnifiedJedis r, String command) {
        long sum = 0;
        for (String info : commandStats(r)) {
            for (String line : info.split("\r?\n")) {
                if (line.startsWith("cmdstat_" + command + ":")) {
                    for (String part : line.substring(line.indexOf(':') + 1).split(",")) {
                        if (part.startsWith("calls=")) sum += Long.parseLong(part.substring(6));
                    }
                }
            }
        }
        return sum;
    }

    static List<String> commandStats(UnifiedJedis r) {
        if (!(r instanceof RedisClusterClient cluster)) return List.of(r.info("commandstats"));
        List<String> all = new ArrayList<>();
        for (String node : cluster.getClusterNodes().keySet()) {
            try (Jedis j = new Jedis(HostAndPort.from(node))) {
                all.add(j.info("commandstats"));
            }
        }
        return all;
    }
}
