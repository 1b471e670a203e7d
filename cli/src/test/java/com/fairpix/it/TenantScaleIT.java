package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.job.JobIds;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * 10,000 tenants through the admin API, then every one of them touched on an ingest node: prints
 * the creation time and the node's heap per cached tenant (issue 3 asks for under 60 s and under
 * 2 KB per tenant; the bounds asserted here are those targets).
 */
class TenantScaleIT {
    static final int TENANTS = 10_000;
    @RegisterExtension static final Farm.Ingest farm = new Farm.Ingest();

    @Test
    void tenThousandTenantsAreCreatedInAMinuteAndCachedInUnderTwoKilobytesEach() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 6);
        long started = System.nanoTime();
        List<String> keys = new ArrayList<>(TENANTS);
        try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
            List<Future<String>> futures = new ArrayList<>(TENANTS);
            for (int i = 0; i < TENANTS; i++) {
                String id = "scale-" + run + "-" + i;
                futures.add(pool.submit(() -> farm.client().createTenant(id, Map.of())));
            }
            for (Future<String> f : futures) keys.add(f.get());
        }
        double createSeconds = (System.nanoTime() - started) / 1e9;

        int cachedBefore = farm.api().tenants().size();
        long heapBefore = settledHeap();
        String missing = "/v1/jobs/" + JobIds.next(Clock.systemUTC());
        try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
            List<Future<Integer>> futures = new ArrayList<>(TENANTS);
            for (String key : keys) futures.add(pool.submit(() -> farm.client().get(key, missing).statusCode()));
            for (Future<Integer> f : futures) assertThat(f.get()).isEqualTo(404); // authenticated, then no such job
        }
        long heapAfter = settledHeap();
        int cached = farm.api().tenants().size() - cachedBefore;
        double bytesPerTenant = (heapAfter - heapBefore) / (double) cached;

        System.out.printf("TenantScaleIT: created %d tenants through the admin API in %.1f s; ingest heap +%d bytes for %d cached tenants = %.0f bytes/tenant%n",
                TENANTS, createSeconds, heapAfter - heapBefore, cached, bytesPerTenant);
        assertThat(cached).isEqualTo(TENANTS);
        assertThat(createSeconds).isLessThan(60);
        assertThat(bytesPerTenant).isLessThan(2048);
    }

    private static long settledHeap() throws InterruptedException {
        var memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
