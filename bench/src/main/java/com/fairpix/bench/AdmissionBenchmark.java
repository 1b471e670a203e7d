package com.fairpix.bench;

import com.fairpix.core.redis.Redis;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantState;
import com.fairpix.ingest.admission.Admission;
import com.fairpix.ingest.admission.AdmissionConfig;
import com.fairpix.ingest.admission.Admissions;
import com.fairpix.ingest.admission.Limits;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.jedis.Bucket4jJedis;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import redis.clients.jedis.UnifiedJedis;

/**
 * One admission decision (cost 1 token) for a Zipf-skewed tenant, by five limiters in the same
 * run against the same Redis: ours in memory, ours over Redis (one EVALSHA), Bucket4j in memory,
 * Bucket4j over Redis with its Jedis (CAS) backend, and the floor of any one-round-trip Redis
 * limiter: a plain one-key Lua token bucket ({@code floor-bucket.lua}, one EVALSHA). Limits are high (1e6 tokens/s) so that every
 * decision is an admission: the cost of deciding, not of rejecting, is measured.
 *
 * <p>Redis: {@code FAIRPIX_REDIS_URL} (default {@code redis://127.0.0.1:16379}). See bench/README.md.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class AdmissionBenchmark {
    @Param({"fairpix-local", "fairpix-redis", "fairpix-redis-borrow", "bucket4j-local", "bucket4j-redis", "floor-redis"})
    public String limiter;

    @Param({"10", "10000"})
    public int tenants;

    /** Zipf exponent of the tenant popularity (1.0: the top tenant is ~10% of traffic at 10,000 tenants). */
    static final double ZIPF_S = 1.0;
    static final int KEYS = 1 << 16;

    Tenant[] tenantRecords;
    int[] order;
    Admission ours;
    Bucket[] localBuckets;
    Bucket[] redisBuckets;
    UnifiedJedis redis;
    String[] floorKeys;
    String floorSha;
    static final List<String> FLOOR_ARGS = List.of("1000000000", "1000000000000000", "1000000000");

    @State(Scope.Thread)
    public static class Cursor {
        int i = new Random().nextInt(KEYS);
    }

    @Setup(Level.Trial)
    public void setUp() {
        String run = UUID.randomUUID().toString().substring(0, 6);
        tenantRecords = new Tenant[tenants];
        for (int i = 0; i < tenants; i++) {
            tenantRecords[i] = new Tenant("b" + run + "-" + i, TenantState.ACTIVE, 1, 1_000_000, 1_000_000, 1_000_000_000L,
                    1_000_000, 1 << 20, 50_000_000L, Tenant.FORMATS, null, null, "cpu", 1);
        }
        order = zipf(tenants, KEYS, ZIPF_S, new Random(42));
        String url = System.getenv().getOrDefault("FAIRPIX_REDIS_URL", "redis://127.0.0.1:16379");
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(Bandwidth.builder().capacity(1_000_000).refillGreedy(1_000_000, Duration.ofSeconds(1)).build())
                .build();
        switch (limiter) {
            case "fairpix-local" -> ours = Admissions.local(AdmissionConfig.defaults(), Clock.systemUTC());
            case "fairpix-redis" -> {
                redis = Redis.connect(url);
                ours = Admissions.redisAlone(redis, AdmissionConfig.defaults(), System::nanoTime);
            }
            case "fairpix-redis-borrow" -> {
                // The production path: a pool capacity C (pinned at 1e6 tokens/s) and tenants
                // guaranteed 1 token/s with a ceiling of 2, so every decision goes through the
                // pool lease (a reservation per decision, a lease per C x 50 ms tokens). The
                // 1e6-token burst keeps every decision an admission for the whole run.
                redis = Redis.connect(url);
                for (int i = 0; i < tenants; i++) {
                    tenantRecords[i] = new Tenant("b" + run + "-" + i, TenantState.ACTIVE, 1, 1, 1_000_000, 1_000_000_000L,
                            1_000_000, 1 << 20, 50_000_000L, Tenant.FORMATS, null, null, "cpu", 1);
                }
                ours = Admissions.redisAlone(redis, AdmissionConfig.defaults().withFarmCapacity(1_000_000, 2), System::nanoTime);
            }
            case "bucket4j-local" -> {
                localBuckets = new Bucket[tenants];
                for (int i = 0; i < tenants; i++) localBuckets[i] = Bucket.builder().addLimit(config.getBandwidths()[0]).build();
            }
            case "bucket4j-redis" -> {
                redis = Redis.connect(url);
                ProxyManager<byte[]> proxies = Bucket4jJedis.casBasedBuilder(redis).build();
                redisBuckets = new Bucket[tenants];
                for (int i = 0; i < tenants; i++) {
                    byte[] key = ("fp:bench:b4j:" + tenantRecords[i].id()).getBytes(StandardCharsets.UTF_8);
                    redisBuckets[i] = proxies.builder().build(key, () -> config);
                }
            }
            case "floor-redis" -> {
                redis = Redis.connect(url);
                floorSha = redis.scriptLoad(floorScript(), "fp:bench:floor");
                floorKeys = new String[tenants];
                for (int i = 0; i < tenants; i++) floorKeys[i] = "fp:{" + tenantRecords[i].id() + "}:floor";
            }
            default -> throw new IllegalArgumentException(limiter);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (redis != null) redis.close();
    }

    @Benchmark
    public boolean decide(Cursor c) {
        int t = order[c.i++ & (KEYS - 1)];
        return switch (limiter) {
            case "fairpix-local", "fairpix-redis", "fairpix-redis-borrow" -> ours.decide(tenantRecords[t], Limits.NANO, null).allowed();
            case "bucket4j-local" -> localBuckets[t].tryConsume(1);
            case "floor-redis" -> ((Long) redis.evalsha(floorSha, List.of(floorKeys[t]), FLOOR_ARGS)) == 1;
            default -> redisBuckets[t].tryConsume(1);
        };
    }

    static String floorScript() {
        try (var in = AdmissionBenchmark.class.getResourceAsStream("/floor-bucket.lua")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** {@code n} tenant indices drawn from a Zipf(s) distribution over {@code tenants} by inverse CDF. */
    static int[] zipf(int tenants, int n, double s, Random random) {
        double[] cdf = new double[tenants];
        double sum = 0;
        for (int k = 0; k < tenants; k++) cdf[k] = sum += 1 / Math.pow(k + 1, s);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            double u = random.nextDouble() * sum;
            int lo = 0, hi = tenants - 1;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (cdf[mid] < u) lo = mid + 1;
                else hi = mid;
            }
            out[i] = lo;
        }
        return out;
    }
}
