package com.fairpix.ingest.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.admission.TokenBucket;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.core.redis.StackRedis;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.time.ManualClock;
import com.fairpix.ingest.admission.internal.RedisAdmission;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.UnifiedJedis;

/**
 * The one token bucket and its Lua twin agree: the same requests (a time, a cost) go through
 * {@link TokenBucket} in Java and through {@code admission.lua} (with {@code buckets.lua} in front)
 * on the real Redis of {@code scripts/stack}, for a tenant whose only binding limit is its rate
 * (no borrowing, quota and concurrency far away), with time passed to the script by hand. Every
 * decision and every remainder must be the same to the nanotoken: both count in integers (doubles
 * below 2^53 in Lua), so there is nothing to round.
 */
class TokenBucketLuaTwinIT {
    static UnifiedJedis redis;
    static final AdmissionConfig CONFIG = AdmissionConfig.defaults();

    @BeforeAll
    static void connect() {
        redis = Redis.connect(StackRedis.url());
    }

    @AfterAll
    static void close() {
        if (redis != null) redis.close();
    }

    /** One request and what each twin made of it. */
    record Step(long atMicros, long costNano, boolean javaAdmitted, long javaLeft, boolean luaAdmitted, long luaLeft) {}

    @ParameterizedTest(name = "rate {0}/s, burst {1}, seed {2}")
    @CsvSource({"7.5, 20, 1", "0.003, 3, 2", "1000000, 1000000, 3", "333.333, 12.5, 4"})
    void theJavaBucketAndTheLuaScriptMakeTheSameDecisionsAndLeaveTheSameTokens(double rate, double burst, long seed) {
        Tenant tenant = AdmissionContract.tenant("twin-" + UUID.randomUUID(), rate, burst);
        Limits limits = Limits.of(tenant, CONFIG, FarmShare.Share.NONE);
        ManualClock clock = new ManualClock(Instant.parse("2026-11-30T08:00:00Z"));
        Admission lua = RedisAdmission.onTestClock(redis, CONFIG, FarmShare.fixed(0), clock::micros);
        TokenBucket java = TokenBucket.holding(limits.burstNano(), clock.micros());
        Random random = new Random(seed);
        // One bucket's time to refill from empty, so the steps cross empty, partly full and full.
        long fullMicros = TokenBucket.untilFull(0, limits.rateMilli(), limits.burstNano());
        List<Step> steps = new ArrayList<>();
        try {
            for (int i = 0; i < 300; i++) {
                // Odd µs and odd nanotokens: any rounding of either twin would show.
                clock.advance(Duration.ofNanos(1000 * (random.nextInt(4) == 0 ? 0 : 1 + (long) (random.nextDouble() * fullMicros / 4))));
                long cost = 1 + (long) (random.nextDouble() * limits.burstNano());
                long now = clock.micros();
                boolean javaAdmitted = java.tryTake(cost, now, limits.rateMilli(), limits.burstNano());
                long javaLeft = java.tokens(now, limits.rateMilli(), limits.burstNano());
                Decision d = lua.decide(tenant, "cpu", cost, UUID.randomUUID().toString());
                steps.add(new Step(now, cost, javaAdmitted, javaLeft, d.allowed(), d.remainingNano()));
            }
        } finally {
            redis.del(RedisKeys.admission(tenant.id()));
            redis.del(RedisKeys.admissionLeases(tenant.id()));
        }
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            assertThat(s.luaAdmitted() == s.javaAdmitted() && s.luaLeft() == s.javaLeft())
                    .as("step %d of %d, the first where the twins differ: %s", i, steps.size(), s).isTrue();
        }
        assertThat(steps).as("the sequence tries both answers").anyMatch(Step::javaAdmitted).anyMatch(s -> !s.javaAdmitted());
    }
}
