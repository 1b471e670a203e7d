package com.fairpix.worker.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.Constraint;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** worker.scheduler names a kind, and each kind builds its scheduler. */
class SchedulerKindTest {
    @Test
    void theSettingNamesEveryKindAndNothingElse() {
        assertThat(((Constraint.Choice) Setting.WORKER_SCHEDULER.constraint()).values())
                .containsExactlyElementsOf(Arrays.stream(SchedulerKind.values()).map(k -> k.name().toLowerCase(Locale.ROOT)).toList());
        FairpixConfig fifo = FairpixConfig.load(Map.of("FAIRPIX_WORKER_SCHEDULER", "fifo"), Map.of());
        assertThat(fifo.choice(Setting.WORKER_SCHEDULER, SchedulerKind.class)).isEqualTo(SchedulerKind.FIFO);
    }

    @Test
    void eachKindBuildsItsScheduler() {
        assertThat(SchedulerKind.FAIR.<String>create(t -> 1.0, t -> 1, 2, 1)).isInstanceOf(FairScheduler.class);
        assertThat(SchedulerKind.FIFO.<String>create(t -> 1.0, t -> 1, 2, 0)).isInstanceOf(FifoScheduler.class);
        assertThat(SchedulerKind.FAIR.reservesSlots()).isTrue();
        assertThat(SchedulerKind.FIFO.reservesSlots()).as("FIFO knows no tenants to reserve a thread for").isFalse();
    }
}
