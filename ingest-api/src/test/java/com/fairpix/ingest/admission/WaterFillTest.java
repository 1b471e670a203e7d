package com.fairpix.ingest.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The water-filling itself: worked examples, and the invariants over random and 10,000-tenant inputs. */
class WaterFillTest {

    @Test
    void noBottleneckGivesEveryTenantItsRate() {
        WaterFill.Result r = WaterFill.fill(100, new double[] {10, 20, 30}, new double[] {10, 20, 30});
        assertThat(r.level()).isEqualTo(1.0);
        assertThat(r.satisfied()).isEqualTo(3);
        assertThat(WaterFill.fill(0, new double[] {10}, new double[] {1000}).level()).as("M unknown").isEqualTo(1.0);
        assertThat(WaterFill.fill(100, new double[] {}, new double[] {}).level()).as("nobody asks").isEqualTo(1.0);
    }

    /**
     * Issue 31's farm: M = 72, a flooder at rate 200 and four tenants at rate 10 asking 3.15 each.
     * Weights capped at M: the quiet ones are satisfied, level (72 − 12.6) ÷ 72 = 0.825, each
     * guaranteed 8.25 (proportional: 72 ÷ 240 = 0.3, a guarantee of 3.0, under their 3.15).
     */
    @Test
    void quietTenantsKeepTheirDemandBesideAHeavyWeightFlooder() {
        double[] rates = {200, 10, 10, 10, 10};
        double[] demands = {900, 3.15, 3.15, 3.15, 3.15};
        WaterFill.Result r = WaterFill.fill(72, rates, demands);
        assertThat(r.satisfied()).isEqualTo(4);
        assertThat(r.level()).isCloseTo((72 - 12.6) / 72, within(1e-12));
        FarmShare.Share share = FarmShare.Share.maxMin(86.4, 72, r.level());
        assertThat(share.guarantee(10)).isCloseTo(8.25, within(1e-9)).isGreaterThan(3.15);
        assertThat(share.guarantee(200)).as("the flooder: what the others leave of M").isCloseTo(72 - 12.6, within(1e-9));
        assertThat(FarmShare.Share.of(86.4, 72, 240).guarantee(10)).as("proportional").isCloseTo(3.0, within(1e-9));
    }

    /** Unequal weights among the bottlenecked: each gets level × its weight. */
    @Test
    void bottleneckedTenantsShareInProportionToTheirWeights() {
        WaterFill.Result r = WaterFill.fill(30, new double[] {10, 20, 5}, new double[] {100, 100, 1});
        // 5-rate tenant asks 1 (satisfied); the rest share 29 by weights 10 and 20: level 29 ÷ 30.
        assertThat(r.satisfied()).isEqualTo(1);
        assertThat(r.level()).isCloseTo(29 / 30.0, within(1e-12));
        assertThat(r.satisfiedDemand()).isCloseTo(1, within(1e-12));
        assertThat(r.unsatisfiedWeight()).isCloseTo(30, within(1e-12));
    }

    @Test
    void demandCountsUpToTheRate() {
        // Both ask far above their rates: each counts as asking its rate (10 and 30), 40 > M = 20;
        // weights 10 and min(30, 20) = 20 (a rate above M claims the whole pool, no more): level 20 ÷ 30.
        WaterFill.Result r = WaterFill.fill(20, new double[] {10, 30}, new double[] {1e6, 1e6});
        assertThat(r.totalDemand()).isCloseTo(40, within(1e-9));
        assertThat(r.level()).isCloseTo(20 / 30.0, within(1e-12));
        FarmShare.Share share = FarmShare.Share.maxMin(24, 20, r.level());
        assertThat(share.guarantee(10) + share.guarantee(30)).isCloseTo(20, within(1e-9));
    }

    @Test
    void badInputsAreRefused() {
        assertThatThrownBy(() -> WaterFill.fill(10, new double[] {1}, new double[] {})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WaterFill.fill(10, new double[] {0}, new double[] {1})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WaterFill.fill(10, new double[] {1}, new double[] {Double.NaN})).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * The invariants, over random pools up to 10,000 tenants: Σ demand of the satisfied + λ × Σ
     * weight of the others = M when bottlenecked (≤ M always); every satisfied tenant's guarantee is
     * ≥ its (capped) demand; every unsatisfied one's is below its demand; no guarantee above the rate.
     */
    @Test
    void invariantsHoldUpToTenThousandTenants() {
        Random rnd = new Random(31);
        for (int round = 0; round < 200; round++) {
            int n = round == 0 ? 10_000 : 1 + rnd.nextInt(round < 100 ? 20 : 2_000);
            double m = 1 + rnd.nextDouble() * 500;
            double[] rates = new double[n];
            double[] demands = new double[n];
            for (int i = 0; i < n; i++) {
                rates[i] = rnd.nextInt(10) == 0 ? 100 + rnd.nextDouble() * 1000 : 0.5 + rnd.nextDouble() * 20;
                demands[i] = rnd.nextInt(4) == 0 ? 0 : rnd.nextDouble() * rates[i] * (rnd.nextBoolean() ? 0.5 : 3);
            }
            WaterFill.Result r = WaterFill.fill(m, rates, demands);
            FarmShare.Share share = FarmShare.Share.maxMin(1.2 * m, m, r.level());
            double satisfiedDemand = 0, unsatisfiedGuarantees = 0;
            int satisfied = 0;
            for (int i = 0; i < n; i++) {
                double d = Math.min(demands[i], rates[i]);
                double g = share.guarantee(rates[i]);
                assertThat(g).isLessThanOrEqualTo(rates[i]).isPositive();
                if (d <= g * (1 + 1e-9)) {
                    satisfied++;
                    satisfiedDemand += d;
                } else {
                    unsatisfiedGuarantees += g;
                }
            }
            assertThat(satisfiedDemand + unsatisfiedGuarantees).as("round %d, n %d: Σ satisfied demand + Σ unsatisfied guarantees ≤ M", round, n)
                    .isLessThanOrEqualTo(m * (1 + 1e-9));
            if (r.level() < 1) {
                assertThat(satisfiedDemand + unsatisfiedGuarantees).as("bottlenecked: all of M is shared").isCloseTo(m, within(m * 1e-6));
                assertThat(satisfied).as("the fill's count of satisfied tenants").isGreaterThanOrEqualTo(r.satisfied());
            } else {
                assertThat(r.totalDemand()).isLessThanOrEqualTo(m * (1 + 1e-9));
            }
        }
    }
}
