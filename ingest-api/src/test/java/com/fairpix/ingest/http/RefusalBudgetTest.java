package com.fairpix.ingest.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fairpix.core.http.ApiProblem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RefusalBudgetTest {
    static final long SECOND = 1_000_000_000L;
    final AtomicLong now = new AtomicLong(42 * SECOND);
    /** 2 tokens/s, 5 at most. */
    final RefusalBudget budget = new RefusalBudget(2, 5, Duration.ZERO, now::get, d -> {});

    @Test
    void aTenantWithinItsBurstIsNeverStopped() {
        for (int i = 0; i < 4; i++) {
            budget.check("a");
            budget.charge("a", 1);
        }
        budget.check("a"); // one token left
        assertThat(budget.tokens("a")).isEqualTo(1.0);
    }

    @Test
    void anEmptyBucketIs429BeforeTheBodyWithRetryAfterUntilOneTokenIsBack() {
        for (int i = 0; i < 5; i++) budget.charge("a", 1);
        ApiProblem p = catchThrowableOfType(ApiProblem.class, () -> budget.check("a"));
        assertThat(p.status()).isEqualTo(429);
        assertThat(p.slug()).isEqualTo("too-many-refusals");
        assertThat(p.headers()).containsEntry("Retry-After", "1").containsEntry("Connection", "close");
        assertThat(p.detail()).contains("ingest.tenant-refusals-per-second");
        // Another tenant is not affected.
        budget.check("b");
        // Half a second later: one token at 2 tokens/s.
        now.addAndGet(SECOND / 2);
        budget.check("a");
    }

    @Test
    void bytesReadCostOneTokenPerMiBAndAreRepaidBeforeTheNextUpload() {
        // A 25 MiB body refused at the limit: 26 tokens, 21 more than the bucket holds.
        budget.charge("a", RefusalBudget.cost(413, "payload-too-large", 25 * RefusalBudget.BYTES_PER_TOKEN));
        assertThat(budget.tokens("a")).isEqualTo(-21.0);
        now.addAndGet(10 * SECOND); // +20 tokens: still below one
        ApiProblem p = catchThrowableOfType(ApiProblem.class, () -> budget.check("a"));
        assertThat(p.headers()).containsEntry("Retry-After", "1");
        now.addAndGet(SECOND);
        budget.check("a");
        assertThat(budget.tokens("a")).isEqualTo(1.0);
    }

    @Test
    void retryAfterCountsWholeSecondsUntilATokenIsBack() {
        budget.charge("a", RefusalBudget.cost(400, "invalid-spec", 9 * RefusalBudget.BYTES_PER_TOKEN)); // 5 - 10 = -5: 6 tokens to one, 3 s at 2/s
        ApiProblem p = catchThrowableOfType(ApiProblem.class, () -> budget.check("a"));
        assertThat(p.headers()).containsEntry("Retry-After", "3");
    }

    @Test
    void theBucketNeverHoldsMoreThanItsBurstAndIsForgottenWhenFull() {
        budget.charge("a", 1);
        now.addAndGet(3600 * SECOND);
        assertThat(budget.tokens("a")).isEqualTo(5.0);
        budget.check("a");
        assertThat(budget.tenantsTracked()).as("a full bucket is the same as none").isZero();
        for (int i = 0; i < 5; i++) budget.charge("a", 1);
        assertThatThrownBy(() -> budget.check("a")).isInstanceOf(ApiProblem.class);
    }

    @Test
    void theClientsFaultCostsATokenAndEveryAnswerButA2xxTheBytesItRead() {
        long mib = RefusalBudget.BYTES_PER_TOKEN;
        assertThat(RefusalBudget.cost(400, "invalid-spec", 0)).isEqualTo(1.0);
        assertThat(RefusalBudget.cost(413, "payload-too-large", 25 * mib)).isEqualTo(26.0);
        assertThat(RefusalBudget.cost(415, "unsupported-media-type", mib / 2)).isEqualTo(1.5);
        assertThat(RefusalBudget.cost(422, "output-too-large", 0)).isEqualTo(1.0);
        // A limit's answer, a duplicate's conflict, the farm's 503 after reading a 25 MiB body: the reading only.
        assertThat(RefusalBudget.cost(429, "rate-limited", 25 * mib)).isEqualTo(25.0);
        assertThat(RefusalBudget.cost(409, "idempotency-in-flight", 2 * mib)).isEqualTo(2.0);
        assertThat(RefusalBudget.cost(503, "overloaded", 25 * mib)).isEqualTo(25.0);
        // ... and nothing when nothing was read (too-many-uploads, a declared length over the limit is a 413: 1).
        assertThat(RefusalBudget.cost(429, "too-many-uploads", 0)).isZero();
        // The object store refusing what the farm named is not the client's fault.
        assertThat(RefusalBudget.cost(422, "original-refused", mib)).isEqualTo(1.0);
        assertThat(RefusalBudget.clientFault(401, "unauthorized")).isFalse();
    }

    @Test
    void aSweepDropsBucketsThatAreFullAgain() {
        budget.charge("gone", 3);
        budget.charge("debtor", 100);
        assertThat(budget.tenantsTracked()).isEqualTo(2);
        now.addAndGet(2 * SECOND); // +4 tokens: "gone" is full, "debtor" is not
        budget.sweep();
        assertThat(budget.tenantsTracked()).isEqualTo(1);
        assertThat(budget.tokens("debtor")).isLessThan(5.0);
        // The sweep also runs by itself, every SWEEP_EVERY checks (of any tenant).
        now.addAndGet(3600 * SECOND);
        for (int i = 0; i < TenantBuckets.SWEEP_EVERY; i++) budget.check("other");
        assertThat(budget.tenantsTracked()).isZero();
    }

    @Test
    void badSettingsAreRefused() {
        assertThatThrownBy(() -> new RefusalBudget(0, 5, Duration.ZERO, now::get, d -> {})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RefusalBudget(1, 0.5, Duration.ZERO, now::get, d -> {})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RefusalBudget(1, 5, Duration.ofMillis(-1), now::get, d -> {})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RefusalBudget(Double.POSITIVE_INFINITY, 5, Duration.ZERO, now::get, d -> {})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RefusalBudget(Double.NaN, 5, Duration.ZERO, now::get, d -> {})).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aThrottledRequestIsHeldForTheHoldButAtMostFourOfATenantAtOnce() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger sleeping = new AtomicInteger();
        CountDownLatch tenantsHeld = new CountDownLatch(RefusalBudget.HELD_PER_TENANT);
        CountDownLatch otherHeld = new CountDownLatch(RefusalBudget.HELD_PER_TENANT + 1);
        List<Duration> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        RefusalBudget held = new RefusalBudget(2, 5, Duration.ofSeconds(1), now::get, d -> {
            asked.add(d);
            sleeping.incrementAndGet();
            tenantsHeld.countDown();
            otherHeld.countDown();
            release.await(10, TimeUnit.SECONDS);
        });
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < RefusalBudget.HELD_PER_TENANT; i++) threads.add(Thread.ofPlatform().start(() -> held.holdBeforeAnswering("a")));
        assertThat(tenantsHeld.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(held.held("a")).isEqualTo(RefusalBudget.HELD_PER_TENANT);
        // The fifth of the tenant's is answered at once; another tenant's is still held.
        held.holdBeforeAnswering("a");
        assertThat(sleeping.get()).isEqualTo(RefusalBudget.HELD_PER_TENANT);
        threads.add(Thread.ofPlatform().start(() -> held.holdBeforeAnswering("b")));
        assertThat(otherHeld.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(sleeping.get()).isEqualTo(RefusalBudget.HELD_PER_TENANT + 1);
        release.countDown();
        for (Thread t : threads) t.join(10_000);
        assertThat(asked).hasSize(RefusalBudget.HELD_PER_TENANT + 1).containsOnly(Duration.ofSeconds(1));
        assertThat(held.held("a")).as("counters are released (and forgotten)").isZero();
    }

    @Test
    void aZeroHoldAnswersAtOnce() {
        AtomicInteger slept = new AtomicInteger();
        new RefusalBudget(2, 5, Duration.ZERO, now::get, d -> slept.incrementAndGet()).holdBeforeAnswering("a");
        assertThat(slept.get()).isZero();
    }
}
