package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.error.FairpixException;
import com.fairpix.core.error.Permanent;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The native memory budget and the per-job deadline, on a hand-moved clock. */
class SafetyTest {
    @Test
    void budgetGrantsUpToItsSizeThenMakesJobsWait() {
        NativeMemoryBudget budget = new NativeMemoryBudget(1 << 20);
        NativeMemoryBudget.Lease a = budget.tryAcquire(600 << 10);
        assertThat(a).isNotNull();
        assertThat(budget.reservedBytes()).isEqualTo(600 << 10);
        assertThat(budget.tryAcquire(600 << 10)).as("no room for a second big job").isNull();
        a.close();
        a.close(); // idempotent
        assertThat(budget.reservedBytes()).isZero();
        assertThat(budget.tryAcquire(600 << 10)).isNotNull();
    }

    @Test
    void aJobLargerThanTheWholeBudgetRunsAlone() {
        NativeMemoryBudget budget = new NativeMemoryBudget(1 << 20);
        NativeMemoryBudget.Lease huge = budget.tryAcquire(10L << 30);
        assertThat(huge).isNotNull();
        assertThat(huge.bytes()).isEqualTo(1 << 20);
        assertThat(budget.tryAcquire(1)).isNull();
    }

    @Test
    void estimateCountsSourceAndOutputPixels() {
        assertThat(NativeMemoryBudget.estimate(1_000_000, 0)).isEqualTo(16_000_000);
        assertThat(NativeMemoryBudget.estimate(1_000_000, 65_536)).isEqualTo(16_000_000 + 16 * 65_536);
    }

    @Test
    void deadlinePassesUntilTheLimitThenFailsWithReasonTimeout() {
        AtomicLong now = new AtomicLong(1_000);
        Deadline d = Deadline.after(Duration.ofSeconds(10), now::get);
        d.check("resize");
        now.addAndGet(Duration.ofSeconds(10).toNanos());
        d.check("resize");
        now.incrementAndGet();
        assertThatThrownBy(() -> d.check("encode")).isInstanceOf(Permanent.class)
                .extracting(e -> ((FairpixException) e).reason()).isEqualTo("timeout");
    }
}
