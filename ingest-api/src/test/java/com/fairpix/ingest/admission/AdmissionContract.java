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
    void theStandingReportsTokensQuotaAndLeasesAndChargesNothing() {
        Admission a = node(AdmissionConfig.defaults(), clock);
        Tenant t = tenant(id("a-standing"), 10, 10, 100, 5);
        Decision fresh = a.standing(t);
        assertThat(fresh.remainingNano()).isEqualTo(tokens(10));
        assertThat(fresh.dailyUsed()).isZero();
        assertThat(fresh.leases()).isZero();
        assertThat(a.decide(t, tokens(4), "job-1").allowed()).isTrue();
        assertThat(a.decide(t, tokens(2), "job-2").allowed()).isTrue();
        after(0.1);
        Decision now = a.standing(t);
        assertThat(now.remainingNano()).as("10 - 6 + 0.1 s x 10/s").isEqualTo(tokens(5));
        assertThat(now.dailyUsed()).isEqualTo(2);
        assertThat(now.leases()).isEqualTo(2);
        assertThat(now.limits().dailyQuota()).isEqualTo(100);
        assertThat(a.standing(t).remainingNano()).as("asking again charged nothing").isEqualTo(tokens(5));
        assertThat(a.decide(t, tokens(5), "job-3").allowed()).as("the standing's tokens are all there").isTrue();
        a.release(t.id(), "job-1");
        assertThat(a.standing(t).leases()).isEqualTo(2);
        assertThat(a.standing(t).dailyUsed()).isEqualTo(3);
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
                Set.of(), Duration.ZERO, Duration.ofSeconds(1), AdmissionConfig.DEFAULT_POOL_LEASE, AdmissionConfig.CostModel.WORK);
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

    /** What one flood scenario gave ({@link #floodWithFourQuietTenants}). */
    record FloodOutcome(int quietSent, int quietRefused, double flooderPerSecond, double quietGuarantee, double level) {}

    /**
     * Issue 31's scenario on a manual clock: a pool that does M = 60 tokens/s (C = 72 with the
     * headroom); a flooder configured at 200 tokens/s (burst 400) asks 400 tokens/s in jobs of 3.15;
     * four tenants at the default rate 10 (burst 20) each ask one 3.15-token job a second (about a
     * third of their rate). 60 s, the share refreshed every 2 s as the ingest does.
     */
    private FloodOutcome floodWithFourQuietTenants(FarmShare.Sharing rule) {
        resetPool();
        AdmissionConfig config = AdmissionConfig.defaults().withFarmCapacity(AdmissionConfig.MEASURED, 2);
        Tenant flooder = tenant(id("mm-flood"), 200, 400);
        Tenant[] quiet = new Tenant[4];
        for (int i = 0; i < quiet.length; i++) quiet[i] = tenant(id("mm-quiet" + i), 10, 20);
        RefreshedShare share = new RefreshedShare(rule, clock, 72, 60).with(flooder).with(quiet).refresh();
        Admission a = node(config, share, clock);
        double cost = 3.15;
        long t0 = clock.micros();
        long end = t0 + 60_000_000L;
        long nextFlood = t0, nextQuiet = t0 + 100_000, nextRefresh = t0 + 2_000_000;
        int quietSent = 0, quietRefused = 0, lateAdmitted = 0;
        while (nextFlood < end) {
            long now = Math.min(nextFlood, Math.min(nextQuiet, nextRefresh));
            clock.set(Instant.EPOCH.plusNanos(now * 1000));
            if (now == nextRefresh) {
                share.refresh();
                nextRefresh += 2_000_000;
            } else if (now == nextQuiet) {
                for (Tenant q : quiet) {
                    quietSent++;
                    if (!ask(a, q, cost)) quietRefused++;
                }
                nextQuiet += 1_000_000;
            } else {
                if (ask(a, flooder, cost) && now - t0 >= 10_000_000L) lateAdmitted++;
                nextFlood += 7_875; // 127 jobs/s: 400 tokens/s
            }
        }
        return new FloodOutcome(quietSent, quietRefused, lateAdmitted * cost / 50.0, share.of("cpu").guarantee(10), share.of("cpu").guaranteeScale());
    }

    /**
     * Issue 31, Done-when 3: a tenant under its max-min share is never refused while a heavy-weight
     * tenant floods. With max-min sharing the quiet tenants (12.6 tokens/s together) keep their whole
     * demand: the level is (60 − 12.6) ÷ 60 = 0.79 (the flooder's weight is its rate capped at M),
     * a guarantee of 7.9 each; the flooder still gets what they leave of C (72 − 12.6 = 59.4/s:
     * its guarantee plus what it borrows). Proportional sharing, over the same run, scales every
     * rate by 60 ÷ 240 = 0.25: 2.5 tokens/s against the 3.15 each quiet tenant sends, refused once
     * its burst is gone (the bug).
     */
    @Test
    void aTenantUnderItsMaxMinShareIsNeverRefusedWhileAHeavyWeightTenantFloods() {
        FloodOutcome maxMin = floodWithFourQuietTenants(FarmShare.Sharing.MAX_MIN);
        assertThat(maxMin.quietSent()).isEqualTo(240);
        assertThat(maxMin.quietRefused()).as("quiet tenants refused under max-min sharing").isZero();
        assertThat(maxMin.level()).isCloseTo((60 - 12.6) / 60, org.assertj.core.api.Assertions.within(0.02));
        assertThat(maxMin.quietGuarantee()).as("a quiet tenant's guarantee covers its demand").isGreaterThan(3.15);
        assertThat(maxMin.flooderPerSecond()).as("work-conserving: the flooder gets what the quiet tenants leave of C, 72 - 12.6 = 59.4/s")
                .isBetween(0.8 * 59.4, 1.05 * 59.4);

        FloodOutcome proportional = floodWithFourQuietTenants(FarmShare.Sharing.PROPORTIONAL);
        assertThat(proportional.quietGuarantee()).isCloseTo(2.5, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(proportional.quietRefused()).as("proportional sharing refuses the quiet tenants (issue 31's bug)").isPositive();
    }

    /**
     * Issue 31, Done-when 3: shares move within two refreshes when a tenant goes quiet or wakes up.
     * M = 20 (C = 24). A (rate 100) floods; B (rate 10) asks 2 tokens/s, under its share: level
     * (20 − 2) ÷ 20 = 0.9, A guaranteed 18. B stops: within two refreshes A is guaranteed all 20.
     * W (rate 100) wakes up and floods: its first request is judged at the current level (20 for a
     * weight of 20, not refused), and within two refreshes A and W are guaranteed 10 each.
     */
    @Test
    void sharesRedistributeWithinTwoRefreshesWhenATenantGoesQuietOrWakes() {
        resetPool();
        AdmissionConfig config = AdmissionConfig.defaults().withFarmCapacity(AdmissionConfig.MEASURED, 2);
        Tenant flooderA = tenant(id("mm-a"), 100, 100);
        Tenant quietB = tenant(id("mm-b"), 10, 10);
        Tenant wakerW = tenant(id("mm-w"), 100, 100);
        RefreshedShare share = new RefreshedShare(FarmShare.Sharing.MAX_MIN, clock, 24, 20).with(flooderA, quietB, wakerW).refresh();
        Admission a = node(config, share, clock);
        // Phase 1, 10 s: A asks 50 tokens/s (jobs of 5), B 2 tokens/s.
        runFor(a, share, 10, flooderA, 5, 10, quietB, 2);
        assertThat(guarantee(a, flooderA)).as("A while B asks 2/s").isCloseTo(18, org.assertj.core.api.Assertions.within(0.01));
        assertThat(guarantee(a, quietB)).as("B's guarantee, level 0.9").isCloseTo(9, org.assertj.core.api.Assertions.within(0.01));
        // B goes quiet: two refreshes later A has the whole pool as its guarantee.
        runFor(a, share, 4, flooderA, 5, 10, null, 0);
        assertThat(guarantee(a, flooderA)).as("A, two refreshes after B went quiet").isCloseTo(20, org.assertj.core.api.Assertions.within(0.01));
        // W wakes up: its first job is judged at the current level, then within two refreshes the pool is halved.
        assertThat(a.decide(wakerW, tokens(5), null).allowed()).as("W's first job, before W counts").isTrue();
        assertThat(guarantee(a, wakerW)).as("W before it counts: level 1 × min(100, 20)").isCloseTo(20, org.assertj.core.api.Assertions.within(0.01));
        runFor(a, share, 4, flooderA, 5, 10, wakerW, 50);
        assertThat(guarantee(a, flooderA)).as("A, two refreshes after W woke").isCloseTo(10, org.assertj.core.api.Assertions.within(0.01));
        assertThat(guarantee(a, wakerW)).as("W, two refreshes after it woke").isCloseTo(10, org.assertj.core.api.Assertions.within(0.01));
    }

    /** The guaranteed rate a decision for {@code t} now uses, tokens/s (a refused cost-0.001 probe; nothing is charged). */
    private static double guarantee(Admission a, Tenant t) {
        return a.decide(t, tokens(1e7), null).limits().rateMilli() / 1000.0;
    }

    /**
     * {@code seconds} of A asking {@code aCost}-token jobs {@code aPerSecond} times a second and
     * {@code b} (if any) asking {@code bTokensPerSecond} in one job a second; a refresh every 2 s,
     * the last at the end.
     */
    private void runFor(Admission adm, RefreshedShare share, int seconds, Tenant a, double aCost, int aPerSecond, Tenant b, double bTokensPerSecond) {
        for (int s = 0; s < seconds; s++) {
            for (int k = 0; k < aPerSecond; k++) {
                ask(adm, a, aCost);
                if (b != null && k == 0) ask(adm, b, bTokensPerSecond);
                clock.advance(Duration.ofMillis(1000 / aPerSecond));
            }
            if (s % 2 == 1) share.refresh();
        }
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
