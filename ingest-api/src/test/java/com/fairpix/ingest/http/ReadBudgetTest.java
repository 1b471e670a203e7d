package com.fairpix.ingest.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.http.ApiProblem;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A tenant's reads are admitted by a bucket of their own; time moves by hand. */
class ReadBudgetTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final ReadBudget reads = new ReadBudget(10, 20, now::get);

    @Test
    void aTenantReadsItsBurstThenGets429WithRetryAfter() {
        for (int i = 0; i < 20; i++) reads.take("a", 1);
        assertThatThrownBy(() -> reads.take("a", 1)).isInstanceOfSatisfying(ApiProblem.class, p -> {
            assertThat(p.status()).isEqualTo(429);
            assertThat(p.slug()).isEqualTo("too-many-reads");
            assertThat(p.headers()).containsEntry("Retry-After", "1");
        });
        reads.take("b", 1); // another tenant's bucket is its own
        now.addAndGet(100_000_000L); // 0.1 s: one token back
        reads.take("a", 1);
    }

    @Test
    void aPageCostsOnePerTwentyJobsAskedFor() {
        assertThat(ReadBudget.pageCost(1)).isEqualTo(1);
        assertThat(ReadBudget.pageCost(20)).isEqualTo(1);
        assertThat(ReadBudget.pageCost(100)).isEqualTo(5);
        for (int i = 0; i < 4; i++) reads.take("a", ReadBudget.pageCost(100));
        assertThatThrownBy(() -> reads.take("a", ReadBudget.pageCost(100))).isInstanceOf(ApiProblem.class)
                .satisfies(e -> assertThat(((ApiProblem) e).headers()).containsEntry("Retry-After", "1"));
        assertThat(reads.tokens("a")).isZero();
    }

    @Test
    void aBucketFullAgainIsDropped() {
        reads.take("a", 1);
        assertThat(reads.buckets()).isEqualTo(1);
        now.addAndGet(1_000_000_000L);
        reads.take("b", 1);
        reads.take("a", 0);
        assertThat(reads.buckets()).as("a refilled and was dropped").isEqualTo(1);
    }
}
