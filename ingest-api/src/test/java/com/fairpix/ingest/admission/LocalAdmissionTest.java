package com.fairpix.ingest.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.time.ManualClock;
import com.fairpix.ingest.admission.internal.LocalAdmission;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The scenarios on the in-memory limiter, plus what only it can show. */
class LocalAdmissionTest extends AdmissionContract {
    private final Map<AdmissionConfig, Admission> nodes = new IdentityHashMap<>();

    @Override
    protected Admission node(AdmissionConfig config, FarmShare share, ManualClock clock) {
        // One JVM: "two nodes" share the one in-memory state.
        return nodes.computeIfAbsent(config, c -> new LocalAdmission(c, clock, share, java.util.function.UnaryOperator.identity()));
    }

    @Test
    void tenThousandRegisteredTenTactiveCostsWhatTenCost() {
        LocalAdmission a = new LocalAdmission(AdmissionConfig.defaults(), clock);
        List<Tenant> registered = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) registered.add(tenant("t" + i, 1_000_000, 1_000_000));
        List<Tenant> active = registered.subList(0, 10);
        long perDecisionWith10 = allocatedPerDecision(a, active);
        assertThat(a.trackedTenants()).as("state exists only for tenants that asked").isEqualTo(10);
        // Now every registered tenant has state (each asked once), and the same 10 keep asking.
        for (Tenant t : registered) a.decide(t, tokens(1), null);
        long perDecisionWith10k = allocatedPerDecision(a, active);
        assertThat(perDecisionWith10k).as("bytes allocated per decision").isLessThanOrEqualTo(perDecisionWith10 + 16);
    }

    private long allocatedPerDecision(LocalAdmission a, List<Tenant> active) {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 20_000; i++) a.decide(active.get(i % active.size()), tokens(1), null); // warm up
        long before = mx.getCurrentThreadAllocatedBytes();
        int n = 100_000;
        for (int i = 0; i < n; i++) a.decide(active.get(i % active.size()), tokens(1), null);
        return (mx.getCurrentThreadAllocatedBytes() - before) / n;
    }
}
