package com.fairpix.worker.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;

/** FIFO, the baseline: the scheduler contract, and arrival order across tenants whatever their weights. */
class FifoSchedulerTest extends JobSchedulerContract {
    @Override
    protected <T> JobScheduler<T> scheduler(ToDoubleFunction<String> weights) {
        return new FifoScheduler<>();
    }

    @Test
    void jobsGoOutInTheOrderTheyCameWhateverTheirTenant() {
        JobScheduler<String> s = scheduler(t -> t.equals("quiet") ? 100.0 : 1.0);
        for (int i = 0; i < 5; i++) s.add(new JobScheduler.Item<>("flood", 1, "f" + i));
        s.add(new JobScheduler.Item<>("quiet", 1, "q0"));
        assertThat(drain(s)).containsExactly("f0", "f1", "f2", "f3", "f4", "q0");
    }
}
