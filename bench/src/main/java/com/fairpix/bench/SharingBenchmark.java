package com.fairpix.bench;

import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantState;
import com.fairpix.ingest.admission.Admission;
import com.fairpix.ingest.admission.AdmissionConfig;
import com.fairpix.ingest.admission.Admissions;
import com.fairpix.ingest.admission.FarmShare;
import com.fairpix.ingest.admission.GuaranteeSharing;
import com.fairpix.ingest.admission.Limits;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Max-min guarantee sharing (issue 31), in memory: {@code decide} is one admission decision (cost 1
 * token, Zipf-chosen tenant) with 10 or 10,000 tenants counted in the pool's demand map and shared by
 * water-filling (the decision counts its demand and reads the pool's level: its cost must not grow
 * with the tenants); {@code refresh} is one background refresh of the pool with that many tenants
 * asking: their counts drained, the window summed, the water-filling and the top 10 (the in-memory
 * store; Redis's share is measured in FarmCapacityIT); {@code share} is only what issue 31 adds to a
 * decision (the count and the guarantee), without the limiter's own per-tenant state. The N asks that fill the counters again run
 * inside each measured refresh, so the figure bounds the refresh from above.
 *
 * <p>Run: {@code java -cp 'bench/target/classes:bench/target/lib/*' org.openjdk.jmh.Main SharingBenchmark -f 1 -wi 2 -w 1s -i 3 -r 2s}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SharingBenchmark {
    @Param({"10", "10000"})
    public int tenants;

    static final int KEYS = 1 << 16;
    Tenant[] records;
    int[] order;
    int cursor;
    Admission admission;
    GuaranteeSharing sharing;
    volatile FarmShare.Share share;
    long second;

    @Setup(Level.Trial)
    public void setUp() {
        records = new Tenant[tenants];
        Map<String, Tenant> byId = new HashMap<>();
        for (int i = 0; i < tenants; i++) {
            // Rates 10 (the default), one in ten 200: with 10,000 tenants asking, the pool is bottlenecked.
            records[i] = new Tenant("s-" + i, TenantState.ACTIVE, 1, i % 10 == 0 ? 200 : 10, 1_000_000, 1_000_000_000L,
                    1_000_000, 1 << 20, 50_000_000L, Tenant.FORMATS, null, null, "cpu", 1);
            byId.put(records[i].id(), records[i]);
        }
        order = AdmissionBenchmark.zipf(tenants, KEYS, 1.0, new Random(42));
        sharing = new GuaranteeSharing(FarmShare.Sharing.MAX_MIN, GuaranteeSharing.DemandStore.inMemory(), id -> Optional.ofNullable(byId.get(id)));
        FarmShare farm = new FarmShare() {
            @Override
            public Share of(String pool) {
                return share;
            }

            @Override
            public void asked(String pool, String tenant, long costNano) {
                sharing.asked(pool, tenant, costNano);
            }
        };
        // Every tenant asks, then one refresh: the level is set and the demand map holds them all.
        for (Tenant t : records) sharing.asked("cpu", t.id(), Limits.nano(3));
        share = sharing.share("cpu", second++, 1200, 1000, FarmShare.Share.NONE).share();
        for (Tenant t : records) sharing.asked("cpu", t.id(), Limits.nano(3));
        admission = Admissions.local(AdmissionConfig.defaults().withFarmCapacity(1200, 2), Clock.systemUTC(), farm);
    }

    @Benchmark
    public boolean decide() {
        return admission.decide(records[order[cursor++ & (KEYS - 1)]], Limits.NANO, null).allowed();
    }

    /** Only what issue 31 adds to a decision: its demand counted, its pool's share read, its guarantee computed. */
    @Benchmark
    public double share() {
        Tenant t = records[order[cursor++ & (KEYS - 1)]];
        sharing.asked("cpu", t.id(), Limits.NANO);
        return share.guarantee(t.rate());
    }

    @Benchmark
    public double refresh() {
        for (Tenant t : records) sharing.asked("cpu", t.id(), Limits.nano(3));
        return sharing.share("cpu", second++, 1200, 1000, FarmShare.Share.NONE).share().guaranteeScale();
    }
}
