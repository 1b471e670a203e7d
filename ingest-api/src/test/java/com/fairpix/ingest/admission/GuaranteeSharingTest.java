package com.fairpix.ingest.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantState;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One node's demand counting and sharing over the in-memory store: the window, who counts, the top list, the rule. */
class GuaranteeSharingTest {
    private final Map<String, Tenant> tenants = new HashMap<>();

    private GuaranteeSharing sharing(FarmShare.Sharing rule) {
        return new GuaranteeSharing(rule, GuaranteeSharing.DemandStore.inMemory(), id -> Optional.ofNullable(tenants.get(id)));
    }

    private void tenant(String id, double rate, TenantState state) {
        Tenant t = AdmissionContract.tenant(id, rate, rate);
        tenants.put(id, new Tenant(id, state, t.weight(), rate, t.burst(), t.dailyQuota(), t.maxConcurrentJobs(), t.maxUploadBytes(), t.maxPixels(),
                t.allowedFormats(), null, null, t.pool(), 1));
    }

    @Test
    void demandIsTheWindowsTokensPerSecondAndOnlyActiveTenantsCount() {
        tenant("a", 200, TenantState.ACTIVE);
        tenant("b", 10, TenantState.ACTIVE);
        tenant("gone", 1000, TenantState.SUSPENDED);
        GuaranteeSharing s = sharing(FarmShare.Sharing.MAX_MIN);
        // Two refreshes, 2 s apart, each with 2 s of asks: a 400 tokens/s, b 3 tokens/s, a suspended tenant and an unknown one.
        GuaranteeSharing.PoolShares p = null;
        for (long second = 100; second <= 102; second += 2) {
            s.asked("cpu", "a", Limits.nano(800));
            s.asked("cpu", "b", Limits.nano(6));
            s.asked("cpu", "gone", Limits.nano(5000));
            s.asked("cpu", "unknown", Limits.nano(5000));
            p = s.share("cpu", second, 60, 50, FarmShare.Share.NONE);
        }
        assertThat(p.tenants()).as("a and b only").isEqualTo(2);
        assertThat(p.top()).extracting(GuaranteeSharing.TenantShare::tenant).containsExactly("a", "b");
        assertThat(p.top().get(0).demand()).isCloseTo(400, within(1e-9));
        assertThat(p.top().get(1).demand()).isCloseTo(3, within(1e-9));
        assertThat(p.demand()).as("a counted up to its rate").isCloseTo(203, within(1e-9));
        assertThat(p.share().guaranteeScale()).as("b satisfied: (50 - 3) / 50").isCloseTo(47 / 50.0, within(1e-12));
        assertThat(p.top().get(1).guarantee()).isCloseTo(9.4, within(1e-9));
        assertThat(p.fill().satisfied()).isEqualTo(1);
        // Nothing asked for two refreshes: the window is empty.
        s.share("cpu", 104, 60, 50, FarmShare.Share.NONE);
        GuaranteeSharing.PoolShares quiet = s.share("cpu", 106, 60, 50, FarmShare.Share.NONE);
        assertThat(quiet.tenants()).isZero();
        assertThat(quiet.share().guaranteeScale()).isEqualTo(1.0);
    }

    @Test
    void theTenantsOverTheirShareAreThoseAskingMoreThanTheirGuaranteeAndOnlyWhileTheyDo() {
        tenant("flood", 200, TenantState.ACTIVE);
        tenant("quiet", 10, TenantState.ACTIVE);
        tenant("greedy", 10, TenantState.ACTIVE);
        GuaranteeSharing s = sharing(FarmShare.Sharing.MAX_MIN);
        // 4 s of asks (the window): flood 400 tokens/s, quiet 3 (a third of its rate), greedy 12 (over its own rate).
        GuaranteeSharing.PoolShares p = twoRefreshes(s, 100, 120, 100, Map.of("flood", 800.0, "quiet", 6.0, "greedy", 24.0));
        assertThat(p.overShare()).as("quiet keeps its whole demand; greedy asks more than its rate; the flood more than what is left")
                .containsExactlyInAnyOrder("flood", "greedy");
        // With room for everyone's demand nobody is over its share but the one asking past its own rate.
        p = twoRefreshes(s, 104, 1200, 1000, Map.of("flood", 100.0, "quiet", 6.0, "greedy", 24.0));
        assertThat(p.overShare()).containsExactly("greedy");
        // Two quiet refreshes: nobody.
        assertThat(twoRefreshes(s, 108, 1200, 1000, Map.of()).overShare()).isEmpty();
    }

    /** Two refreshes 2 s apart from {@code second}, each after the tenants asked {@code asks} tokens; the second's shares. */
    private static GuaranteeSharing.PoolShares twoRefreshes(GuaranteeSharing s, long second, double capacity, double m, Map<String, Double> asks) {
        asks.forEach((t, tokens) -> s.asked("cpu", t, Limits.nano(tokens)));
        s.share("cpu", second, capacity, m, FarmShare.Share.NONE);
        asks.forEach((t, tokens) -> s.asked("cpu", t, Limits.nano(tokens)));
        return s.share("cpu", second + 2, capacity, m, FarmShare.Share.NONE);
    }

    @Test
    void theProportionalRuleReadsTheShareItIsGivenAndStillReportsDemand() {
        tenant("a", 200, TenantState.ACTIVE);
        GuaranteeSharing s = sharing(FarmShare.Sharing.PROPORTIONAL);
        s.asked("cpu", "a", Limits.nano(40));
        FarmShare.Share proportional = FarmShare.Share.of(60, 50, 200);
        GuaranteeSharing.PoolShares p = s.share("cpu", 10, 60, 50, proportional);
        assertThat(p.share()).isSameAs(proportional);
        assertThat(p.sharing()).isEqualTo(FarmShare.Sharing.PROPORTIONAL);
        assertThat(p.top().getFirst().demand()).isCloseTo(10, within(1e-9));
        assertThat(p.top().getFirst().guarantee()).isCloseTo(50, within(1e-9));
    }

    @Test
    void theTopListHoldsTheTenLargestDemandsLargestFirst() {
        GuaranteeSharing s = sharing(FarmShare.Sharing.MAX_MIN);
        for (int i = 1; i <= 30; i++) {
            tenant("t" + i, 100, TenantState.ACTIVE);
            s.asked("cpu", "t" + i, Limits.nano(i * 4));
        }
        GuaranteeSharing.PoolShares p = s.share("cpu", 10, 1000, 1000, FarmShare.Share.NONE);
        assertThat(p.tenants()).isEqualTo(30);
        assertThat(p.top()).hasSize(GuaranteeSharing.TOP);
        assertThat(p.top()).extracting(GuaranteeSharing.TenantShare::tenant).startsWith("t30", "t29").endsWith("t21");
    }
}
