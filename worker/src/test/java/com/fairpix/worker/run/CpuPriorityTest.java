package com.fairpix.worker.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CpuPriorityTest {
    /** Runs {@code body} on a fresh thread, so the test's own thread keeps its priority. */
    private static <T> T onNewThread(java.util.function.Supplier<T> body) throws InterruptedException {
        AtomicReference<T> out = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> out.set(body.get()));
        t.join();
        return out.get();
    }

    @Test
    void lowersOnlyTheCallingThread() throws InterruptedException {
        assumeTrue(CpuPriority.currentThreadNice() != null, "Linux /proc only");
        int before = CpuPriority.currentThreadNice();
        assumeTrue(before < 7, "the test runs below nice 7");

        Integer after = onNewThread(() -> CpuPriority.lowerCurrentThread(7) ? CpuPriority.currentThreadNice() : null);

        assertThat(after).isEqualTo(7);
        assertThat(CpuPriority.currentThreadNice()).as("this thread is untouched").isEqualTo(before);
    }

    @Test
    void neverRaisesAPriority() throws InterruptedException {
        assumeTrue(CpuPriority.currentThreadNice() != null, "Linux /proc only");
        assumeTrue(CpuPriority.currentThreadNice() < 9, "the test runs below nice 9");

        int[] result = onNewThread(() -> {
            CpuPriority.lowerCurrentThread(9);
            boolean atFour = CpuPriority.lowerCurrentThread(4);
            return new int[] {atFour ? 1 : 0, CpuPriority.currentThreadNice()};
        });

        assertThat(result[0]).as("asked for 4 while at 9: not done").isZero();
        assertThat(result[1]).isEqualTo(9);
    }

    @Test
    void refusesValuesOutsideTheNiceRange() {
        assertThatThrownBy(() -> CpuPriority.lowerCurrentThread(20)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CpuPriority.lowerCurrentThread(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
