package com.fairpix.ingest.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.http.Problems;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantState;
import com.fairpix.core.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every admission implementation must do (exact bursts after any idle time, debt, exact waits,
 * borrowing idle guarantees and giving them back, quotas, leases), run against every implementation
 * (one contract, every implementation): in memory ({@code LocalAdmissionTest}) and on the real Redis
 * ({@code RedisAdmissionIT}). Time is moved by hand; nothing sleeps.
 */
public abstract class AdmissionContract {
    protected static final Instant START = Instant.parse("2026-11-30T08:00:00Z");
    protected ManualClock clock;

    /** A limiter node on {@code clock}; two calls with the same config share state (two ingest nodes). */
    protected Admission node(AdmissionConfig config, ManualClock clock) {
        return node(config, FarmShare.fixed(config.farmCapacity()), clock);
    }

    /** A limiter node that reads each pool's capacity and guarantee scale from {@code share}. */
    protected abstract Admission node(AdmissionConfig config, FarmShare share, ManualClock clock);

    /** Whether a scenario may make a million decisions (in memory) or should use the equivalent large-cost form. */
    protected boolean cheapDecisions() { return true; }

    @BeforeEach
    void newClock() {
        clock = new ManualClock(START);
    }

    protected static String id(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    public static Tenant tenant(String id, double rate, double burst, long daily, int maxConcurrent) {
        return new Tenant(id, TenantState.ACTIVE, 1, rate, burst, daily, maxConcurrent, 1 << 20, 50_000_000L,
                Tenant.FORMATS, null, null, "cpu", 1);
    }

    public static Tenant tenant(String id, double rate, double burst) {
        return tenant(id, rate, burst, 1_000_000_000L, 1_000_000);
    }

    protected static long tokens(double t) { return Limits.nano(t); }

    protected static boolean ask(Admission a, Tenant t, double cost) {
        return a.decide(t, tokens(cost), null).allowed();
    }

    protected static int count(Admission a, Tenant t, int n, double cost) {
        int ok = 0;
        for (int i = 0; i < n; i++) if (ask(a, t, cost)) ok++;
        return ok;
    }

    private void after(double seconds) {
        clock.advance(Duration.ofNanos(Math.round(seconds * 1e9)));
    }

    @Test
    void aMillionPerSecondAfterTwelveHoursIdleAdmitsExactlyTheBurst() {
        Admission a = node(AdmissionConfig.defaults(), clock);
        Tenant t = tenant(id("a1"), 1_000_000, 1_000_000);
        assertThat(ask(a, t, 1_000_000)).as("drain to 0").isTrue();
        assertThat(ask(a, t, 1)).isFalse();
        clock.advance(Duration.ofHours(12));
        if (cheapDecisions()) {
            assertThat(count(a, t, 1_000_001, 1)).isEqualTo(1_000_000);
        } else {
            // Same arithmetic, fewer round trips: 999,990 in one request, then 11 of cost 1.
            assertThat(ask(a, t, 999_990)).isTrue();
            assertThat(count(a, t, 11, 1)).isEqualTo(10);
        }
    }

    @Test
    void tenYearsIdleRefillsToTheBurstNotBeyond() {
        Admission a = node(AdmissionConfig.defaults(), clock);
        Tenant t = tenant(id("a2"), 1, 1);
        assertThat(ask(a, t, 1)).isTrue();
        clock.advance(Duration.ofDays(3653));
        assertThat(count(a, t, 2, 1)).isEqualTo(1);
    }

    @Test
    void deniedWithTheExactWaitAndRetryAfterRoundedUp() {
        Admission a = node(AdmissionConfig.defaults(), clock);
        Tenant t = tenant(id("a3"), 1, 1);
        assertThat(ask(a, t, 1)).isTrue();
        after(0.2);
        Decision d = a.decide(t, tokens(1), null);
        assertThat(d.allowed()).isFalse();
        assertThat(d.violated()).containsExactly(Policy.RATE);
        assertThat(d.retryAfterMicros()).isEqualTo(800_000);
        ApiProblem p = Problems.of(RateLimitFields.problem(t, d));
        assertThat(p.status()).isEqualTo(429);
        assertThat(p.headers()).containsEntry("Retry-After", "1");
        assertThat(p.extensions()).containsEntry("violated-policies", java.util.List.of("rate")).containsEntry("tenant", t.id()).containsEntry("cost", 1.0);
        assertThat(p.headers().get("RateLimit")).startsWith("\"tokens\";r=0;t=1");
        assertThat(p.headers().get("RateLimit-Policy")).startsWith("\"tokens\";q=1;w=1");
    }

    @Test
    void aForcedChargeLeavesDebtThatDelaysTheNextAdmission() {
        Admission a = node(AdmissionConfig.defaults(), clock);
        Tenant t = tenant(id("a4"), 50, 50);
        a.charge(t, tokens(80));
        after(0.60);
        Decision d = a.decide(t, tokens(1), null);
        assertThat(d.allowed()).as("balance -30 + 0.60 s × 50/s = 0").isFalse();
        assertThat(d.remainingNano()).isZero();
        after(0.02);
        assertThat(ask(a, t, 1)).isTrue();
    }

    @Test
    void aLimitChangedAtRuntimeReachesEveryNode() {
        AdmissionConfig config = AdmissionConfig.defaults();
        Admission one = node(config, clock);
        Admission two = node(config, clock);
        String id = id("a5");
        Tenant slow = tenant(id, 5 / 60.0, 5);
        assertThat(count(one, slow, 5, 1)).isEqualTo(5);
        Tenant faster = tenant(id, 10 / 60.0, 10); // hot reload: the next request carries the new values
        clock.advance(Duration.ofSeconds(60));
        assertThat(count(one, faster, 6, 1) + count(two, faster, 6, 1)).isEqualTo(10);
    }

    @Test
    void noFixedWindowDoublingAtASecondBoundary() {
        Admission a = node(AdmissionConfig.defaults(), clock);
        Tenant t = tenant(id("a7"), 2, 2);
        after(0.95);
        int ok = count(a, t, 2, 1);
        after(0.10);
        ok += count(a, t, 2, 1);
        assertThat(ok).isEqualTo(2);
    }

    @Test
    void theBurstAfterIdleIsTheBurstNotBurstPlusOne() {
        Admission a = node(AdmissionConfig.defaults(), clock);
        Tenant t = tenant(id("a8"), 2, 2);
        assertThat(count(a, t, 2, 1)).isEqualTo(2);
        after(2);
        assertThat(count(a, t, 6, 1)).isEqualTo(2);
    }

    @Test
    void aCostThatCanNeverFitIsRejectedAtOnceWithoutRetryAfter() {
        Admission a = node(AdmissionConfig.defaults(), clock);
        Tenant t = tenant(id("a9"), 5, 5);
        Decision d = a.decide(t, tokens(5000), null);
        assertThat(d.allowed()).isFalse();
        assertThat(d.neverSatisfiable()).isTrue();
        ApiProblem p = Problems.of(RateLimitFields.problem(t, d));
        assertThat(p.status()).isEqualTo(422);
        assertThat(p.headers()).doesNotContainKey("Retry-After");
        assertThat(p.getMessage()).contains("burst");
        assertThat(ask(a, t, 1)).isTrue();
    }

    @Test
    void theWaitIsNotRoundedInTheClientsFavour() {
        Admission a = node(AdmissionConfig.defaults(), clock);
        Tenant t = tenant(id("a10"), 1, 1);
        assertThat(ask(a, t, 1)).isTrue();
        after(0.6);
        Decision d = a.decide(t, tokens(1), null);
        assertThat(d.allowed()).isFalse();
        assertThat(d.retryAfterMicros()).isEqualTo(400_000);
        after(0.4);
        assertThat(ask(a, t, 1)).isTrue();
    }

    @Test
    void oneTenantsTrafficLeavesAnotherUntouched() {
        Admission a = node(AdmissionConfig.defaults(), clock);
        Tenant slow = tenant(id("a11a"), 1, 1);
        Tenant busy = tenant(id("a11b"), 100, 100);
        int ok = 0;
        for (int i = 0; i < 50; i++) {
            if (ask(a, busy, 1)) ok++;
            after(0.02);
        }
        assertThat(ok).isEqualTo(50);
        Decision first = a.decide(slow, tokens(1), null);
        assertThat(first.allowed()).isTrue();
        assertThat(first.remainingNano()).as("A's bucket is still full").isZero();
        assertThat(ask(a, slow, 1)).isFalse();
    }

    /** Farm 100/s; A, B, C guaranteed 30/s each with a ceiling of 100/s. */
    protected AdmissionConfig farm() {
        return new AdmissionConfig(100, 100, 100 / 30.0, 0, 1, Duration.ofMinutes(15), AdmissionConfig.RedisDown.OPEN, 1,
                Set.of(), Duration.ZERO, Duration.ofSeconds(1), AdmissionConfig.DEFAULT_POOL_LEASE);
    }

    /** Hook for implementations whose borrowing pool outlives a test (Redis): reset it. */
    protected void resetPool() {}

    @Test
    void idleGuaranteesAreBorrowedAndComeBackAtOnce() {
        resetPool();
        Admission a = node(farm(), clock);
        Tenant ta = tenant(id("a12a"), 30, 30);
        Tenant tc = tenant(id("a12c"), 30, 30);
        // Work-conserving: C floods 200/s for 10 s while A and B are idle.
        int c = 0;
        for (int i = 0; i < 2000; i++) {
            if (ask(a, tc, 1)) c++;
            clock.advance(Duration.ofMillis(5));
        }
        assertThat(c).as("C borrows the idle guarantees up to its ceiling: ~100/s for 10 s").isBetween(950, 1110);

        // Guarantee protected: A sends 30/s (every 33,334 µs) while C keeps flooding at 200/s (every 5,000 µs).
        long t0 = clock.micros();
        long nextA = t0, nextC = t0;
        int aSent = 0, aOk = 0, cLate = 0;
        while (aSent < 300) {
            if (nextA <= nextC) {
                clock.set(Instant.EPOCH.plusNanos(nextA * 1000));
                aSent++;
                if (ask(a, ta, 1)) aOk++;
                nextA += 33_334;
            } else {
                clock.set(Instant.EPOCH.plusNanos(nextC * 1000));
                if (ask(a, tc, 1) && nextC - t0 >= 5_000_000) cLate++;
                nextC += 5_000;
            }
        }
        assertThat(aOk).as("none of A's requests at its guarantee is rejected").isEqualTo(300);
        double cRate = cLate / ((nextC - t0 - 5_000_000) / 1e6);
        assertThat(cRate).as("C drops to what is left: 100 - 30 = 70/s").isBetween(60.0, 75.0);
    }

    /**
     * Guarantees are shares of what exists: capacity 20 tokens/s, a flooder guaranteed 200/s and B
     * guaranteed 20/s (Σ 220, so each is scaled by 20/220). The flooder asks 200/s for 60 s; B asks
     * 1.6/s, under its scaled guarantee of 1.82/s. B is never rejected, and the flooder, whose
     * configured rate is 10× the farm, gets what B leaves of the 20/s (its scaled guarantee plus
     * what it borrows), not 200/s.
     */
    @Test
    void guaranteesAboveTheCapacityAreHonouredAsSharesOfIt() {
        resetPool();
        AdmissionConfig config = AdmissionConfig.defaults().withFarmCapacity(AdmissionConfig.MEASURED, 2);
        FarmShare.Share share = FarmShare.Share.of(20, 220);
        assertThat(share.guaranteeScale()).isCloseTo(20 / 220.0, org.assertj.core.api.Assertions.within(1e-12));
        Admission a = node(config, pool -> share, clock);
        Tenant flooder = tenant(id("a17f"), 200, 10);
        Tenant b = tenant(id("a17b"), 20, 10);
        long t0 = clock.micros();
        long nextF = t0, nextB = t0;
        int bSent = 0, bOk = 0, fOk = 0, fLate = 0;
        while (nextF - t0 < 60_000_000L) {
            if (nextB <= nextF) {
                clock.set(Instant.EPOCH.plusNanos(nextB * 1000));
                bSent++;
                if (ask(a, b, 1)) bOk++;
                nextB += 625_000;
            } else {
                clock.set(Instant.EPOCH.plusNanos(nextF * 1000));
                if (ask(a, flooder, 1)) {
                    fOk++;
                    if (nextF - t0 >= 10_000_000L) fLate++;
                }
                nextF += 5_000;
            }
        }
        assertThat(bOk).as("none of B's requests within its scaled guarantee is rejected").isEqualTo(bSent);
        double fRate = fLate / 50.0;
        assertThat(fRate).as("the flooder gets the capacity B leaves: 20 - 1.6 = 18.4/s, not its configured 200/s").isBetween(17.0, 19.0);
        assertThat(fOk).as("over the whole minute: bursts (10 + 20) plus 60 s at about 18.4/s").isLessThan(18 * 60 + 60);
    }

    /** Each pool lends its own capacity: a cpu tenant that drains the cpu pool's borrowing bucket leaves the gpu pool's whole. */
    @Test
    void eachPoolBorrowsFromItsOwnCapacity() {
        resetPool();
        AdmissionConfig config = AdmissionConfig.defaults().withFarmCapacity(AdmissionConfig.MEASURED, 10);
        FarmShare.Share share = FarmShare.Share.of(10, 0);
        Admission a = node(config, pool -> share, clock);
        Tenant cpu = tenant(id("a18c"), 1, 1);
        Tenant gpu = tenant(id("a18g"), 1, 1);
        // The guarantee's 1 token, then the ceiling (min(10, 1 × 10) = 10/s, bucket 10) and the pool (10 tokens).
        assertThat(count(a, cpu, 20, 1)).as("cpu: 1 guaranteed + 9 borrowed (the pool's 10 less the guaranteed one)").isEqualTo(10);
        Decision d = a.decide(gpu, "gpu", tokens(1), null);
        assertThat(d.allowed()).isTrue();
        int gpuOk = 1;
        for (int i = 0; i < 19; i++) if (a.decide(gpu, "gpu", tokens(1), null).allowed()) gpuOk++;
        assertThat(gpuOk).as("the gpu pool was untouched by the cpu tenant").isEqualTo(10);
    }

    @Test
    void theDailyQuotaResetsAtTheDaysEnd() {
        Admission a = node(AdmissionConfig.defaults(), clock);
        Tenant t = tenant(id("a15"), 1_000_000, 1_000_000, 1000, 1_000_000);
        clock.set(Instant.parse("2026-11-30T23:00:00Z"));
        assertThat(count(a, t, 1000, 1)).isEqualTo(1000);
        clock.set(Instant.parse("2026-11-30T23:59:59Z"));
        Decision d = a.decide(t, tokens(1), null);
        assertThat(d.allowed()).isFalse();
        assertThat(d.violated()).containsExactly(Policy.DAILY_QUOTA);
        assertThat(d.retryAfterMicros()).isEqualTo(1_000_000);
        assertThat(Problems.of(RateLimitFields.problem(t, d)).headers()).containsEntry("Retry-After", "1");
        clock.set(Instant.parse("2026-12-01T00:00:00Z"));
        assertThat(ask(a, t, 1)).isTrue();
    }

    @Test
    void aDeadWorkersSlotComesBackWhenItsLeaseExpires() {
        AdmissionConfig config = AdmissionConfig.defaults().withLeaseTtl(Duration.ofSeconds(30));
        Admission a = node(config, clock);
        Tenant t = tenant(id("a16"), 1000, 1000, 1_000_000, 2);
        assertThat(a.decide(t, tokens(1), "job-1").allowed()).isTrue();
        assertThat(a.decide(t, tokens(1), "job-2").leases()).isEqualTo(2);
        Decision third = a.decide(t, tokens(1), "job-3");
        assertThat(third.allowed()).isFalse();
        assertThat(third.violated()).containsExactly(Policy.CONCURRENCY);
        // job-2's worker finishes and releases; job-1's worker was SIGKILLed and never will.
        clock.advance(Duration.ofSeconds(10));
        a.release(t.id(), "job-2");
        assertThat(a.decide(t, tokens(1), "job-3").leases()).isEqualTo(2);
        clock.advance(Duration.ofSeconds(19));
        Decision fourth = a.decide(t, tokens(1), "job-4");
        assertThat(fourth.allowed()).as("job-1's lease still holds").isFalse();
        assertThat(fourth.leases()).isLessThanOrEqualTo(2);
        clock.advance(Duration.ofSeconds(2));
        Decision after = a.decide(t, tokens(1), "job-4");
        assertThat(after.allowed()).as("the dead worker's slot came back").isTrue();
        assertThat(after.leases()).isEqualTo(2);
    }

    @Test
    void shadowModeDecidesAndCountsButNeverRejects() {
        Admission a = node(AdmissionConfig.defaults().withShadow(Set.of(Policy.RATE)), clock);
        Tenant t = tenant(id("shadow"), 1, 1);
        assertThat(ask(a, t, 1)).isTrue();
        Decision d = a.decide(t, tokens(1), null);
        assertThat(d.allowed()).isTrue();
        assertThat(d.shadowViolated()).containsExactly(Policy.RATE);
        assertThat(d.remainingNano()).as("the bucket holds what enforcement would hold").isZero();
    }
}
