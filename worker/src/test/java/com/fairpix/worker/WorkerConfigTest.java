package com.fairpix.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.pool.Pool;
import com.fairpix.worker.consume.ReadAhead;
import com.fairpix.worker.schedule.SchedulerKind;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The worker's settings read once into typed values, with what start-up derives from them. */
class WorkerConfigTest {
    static WorkerConfig load(Map<String, String> env) {
        return WorkerConfig.from(FairpixConfig.load(env, Map.of()));
    }

    @Test
    void theDefaults() {
        WorkerConfig c = load(Map.of());

        assertThat(c.pool()).isEqualTo(Pool.CPU);
        assertThat(c.scheduler()).isEqualTo(SchedulerKind.FAIR);
        assertThat(c.consume().sharedThreads()).as("0 = one per core").isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(c.consume().reservedThreads()).isEqualTo(2);
        assertThat(c.consume().sharedNice()).isEqualTo(10);
        assertThat(c.consume().readAhead()).isEqualTo(ReadAhead.Mode.TENANT);
        assertThat(c.consume().limits()).isEqualTo(new ReadAhead.Limits(16, 4 << 20, 256, 32 << 20, 32));
        assertThat(c.jobTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.consume().abandonAfter()).as("twice the job limit and 30 s more").isEqualTo(Duration.ofSeconds(90));
        assertThat(c.maxPollInterval()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.jobRetention()).isEqualTo(Duration.ofDays(7));
    }

    @Test
    void fifoRunsNoReservedThreads() {
        WorkerConfig c = load(Map.of("FAIRPIX_WORKER_SCHEDULER", "fifo", "FAIRPIX_WORKER_THREADS", "3", "FAIRPIX_WORKER_READ_AHEAD", "partition",
                "FAIRPIX_WORKER_POOL", "gpu"));

        assertThat(c.scheduler()).isEqualTo(SchedulerKind.FIFO);
        assertThat(c.consume().sharedThreads()).isEqualTo(3);
        assertThat(c.consume().reservedThreads()).isZero();
        assertThat(c.consume().readAhead()).isEqualTo(ReadAhead.Mode.PARTITION);
        assertThat(c.pool()).isEqualTo(Pool.GPU);
    }
}
