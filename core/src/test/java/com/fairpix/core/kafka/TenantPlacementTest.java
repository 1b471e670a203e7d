package com.fairpix.core.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

class TenantPlacementTest {
    private final TenantPlacement placement = new TenantPlacement(50);

    @Test
    void aTenantOfWidthOneLandsWhereKafkasDefaultPartitionerPutsItsKey() {
        for (int i = 0; i < 500; i++) {
            String tenant = "t-" + UUID.randomUUID();
            int kafka = BuiltInPartitioner.partitionForKey(tenant.getBytes(StandardCharsets.UTF_8), 12);
            assertThat(TenantPlacement.home(tenant, 12)).isEqualTo(kafka);
            assertThat(placement.partitionFor(tenant, 10, "job-" + i, 12)).isEqualTo(kafka);
            assertThat(placement.partitions(tenant, 10, 12)).containsExactly(kafka);
        }
    }

    @Test
    void widthGrowsWithTheRateAndStopsAtThePartitionCount() {
        assertThat(placement.width(0, 12)).isEqualTo(1);
        assertThat(placement.width(50, 12)).isEqualTo(1);
        assertThat(placement.width(50.1, 12)).isEqualTo(2);
        assertThat(placement.width(200, 12)).isEqualTo(4);
        assertThat(placement.width(10_000, 12)).isEqualTo(12);
        assertThat(placement.width(Double.POSITIVE_INFINITY, 12)).isEqualTo(12);
        assertThat(placement.width(Double.NaN, 12)).isEqualTo(1);
        assertThat(new TenantPlacement(0).width(10_000, 12)).isEqualTo(1);
        assertThatThrownBy(() -> placement.width(10, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aWideTenantsJobsSpreadEvenlyOverItsRunOfConsecutivePartitions() {
        String tenant = "noisy";
        int[] run = placement.partitions(tenant, 200, 12);
        int home = TenantPlacement.home(tenant, 12);
        assertThat(run).containsExactly(home, (home + 1) % 12, (home + 2) % 12, (home + 3) % 12);
        Map<Integer, Integer> counts = new HashMap<>();
        for (int i = 0; i < 8_000; i++) counts.merge(placement.partitionFor(tenant, 200, UUID.randomUUID().toString(), 12), 1, Integer::sum);
        assertThat(counts.keySet()).containsExactlyInAnyOrder(run[0], run[1], run[2], run[3]);
        // 2,000 expected each; 4 sigma is about 175.
        counts.values().forEach(n -> assertThat(n).isBetween(1_800, 2_200));
        for (int p = 0; p < 12; p++) {
            final int partition = p;
            boolean inRun = java.util.Arrays.stream(run).anyMatch(x -> x == partition);
            assertThat(placement.covers(tenant, 200, 12, p)).as("partition %d", p).isEqualTo(inRun);
        }
    }

    @Test
    void theRunWrapsAroundTheLastPartition() {
        String tenant = null;
        for (int i = 0; tenant == null; i++) if (TenantPlacement.home("w" + i, 12) == 11) tenant = "w" + i;
        assertThat(placement.partitions(tenant, 150, 12)).containsExactly(11, 0, 1);
    }
}
