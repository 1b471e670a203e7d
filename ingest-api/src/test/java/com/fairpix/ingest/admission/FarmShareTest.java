package com.fairpix.ingest.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fairpix.core.tenant.Tenant;
import org.junit.jupiter.api.Test;

/** A pool's share and what it makes of a tenant's limits. */
class FarmShareTest {

    @Test
    void guaranteesAreScaledOnlyWhenTheyAddUpToMoreThanTheCapacity() {
        assertThat(FarmShare.Share.of(10, 5)).isEqualTo(new FarmShare.Share(10, 1));
        assertThat(FarmShare.Share.of(10, 10).guaranteeScale()).isEqualTo(1.0);
        assertThat(FarmShare.Share.of(10, 40).guaranteeScale()).isEqualTo(0.25);
        assertThat(FarmShare.Share.of(0, 40)).as("no capacity known").isEqualTo(FarmShare.Share.NONE);
        assertThat(FarmShare.Share.of(Double.NaN, 40)).isEqualTo(FarmShare.Share.NONE);
        assertThat(FarmShare.Share.of(10, Double.NaN).guaranteeScale()).as("sum not read yet").isEqualTo(1.0);
        assertThat(FarmShare.Share.of(1e12, 0).capacity()).isEqualTo(Limits.MAX_RATE);
        assertThat(FarmShare.Share.of(1, 1e300).guaranteeScale()).isPositive();
        assertThatThrownBy(() -> new FarmShare.Share(-1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FarmShare.Share(1, 0)).isInstanceOf(IllegalArgumentException.class);
        // Measured: borrowing reaches C = 1.2 × the measured 10, guarantees are scaled to the measured 10 itself.
        assertThat(FarmShare.Share.of(12, 10, 50)).isEqualTo(new FarmShare.Share(12, 0.2));
        assertThat(FarmShare.Share.of(12, 10, 11).guaranteeScale()).as("11 guaranteed on 10 done: scaled though under C").isCloseTo(10 / 11.0, within(1e-12));
        assertThat(FarmShare.fixed(0).of("cpu")).isEqualTo(FarmShare.Share.NONE);
        assertThat(FarmShare.fixed(AdmissionConfig.MEASURED).of("cpu")).as("measured, but nothing measures here").isEqualTo(FarmShare.Share.NONE);
        assertThat(FarmShare.fixed(50).of("gpu")).isEqualTo(new FarmShare.Share(50, 1));
    }

    @Test
    void aScaledGuaranteeKeepsItsBurstAndBorrowsUpToTheConfiguredCeiling() {
        AdmissionConfig config = AdmissionConfig.defaults().withFarmCapacity(AdmissionConfig.MEASURED, 2);
        Tenant t = AdmissionContract.tenant("t", 200, 400);
        Limits l = Limits.of(t, config, new FarmShare.Share(80, 0.25));
        assertThat(l.rateMilli()).as("200 × 0.25 = 50 tokens/s").isEqualTo(50_000);
        assertThat(l.burstNano()).as("the burst is not scaled: a job that fits keeps fitting").isEqualTo(Limits.nano(400));
        assertThat(l.ceilRateMilli()).as("min(C, 200 × 2) = 80").isEqualTo(80_000);
        assertThat(l.ceilBurstNano()).as("the configured bucket's span, 2 s, at the ceiling").isEqualTo(Limits.nano(160));
        assertThat(l.poolRateMilli()).isEqualTo(80_000);
        assertThat(l.poolBurstNano()).as("one second of C").isEqualTo(Limits.nano(80));
        assertThat(l.borrowing()).isTrue();

        Limits none = Limits.of(t, config, FarmShare.Share.NONE);
        assertThat(none.rateMilli()).isEqualTo(200_000);
        assertThat(none.borrowing()).as("no capacity known: no borrowing").isFalse();
        assertThat(none.poolRateMilli()).isZero();

        Limits noCeiling = Limits.of(t, AdmissionConfig.defaults().withFarmCapacity(AdmissionConfig.MEASURED, 1), new FarmShare.Share(80, 0.25));
        assertThat(noCeiling.borrowing()).as("ceiling factor 1: the guarantee is the limit").isFalse();
        assertThat(noCeiling.rateMilli()).isEqualTo(50_000);
        assertThat(Limits.of(t, config, new FarmShare.Share(80, 0.25)).perNode(2).borrowing()).as("the fail-open share never borrows").isFalse();
    }
}
