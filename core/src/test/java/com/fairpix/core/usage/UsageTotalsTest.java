package com.fairpix.core.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UsageTotalsTest {
    static final Instant T = Instant.parse("2026-12-03T10:15:00Z");

    static JobRecord job(JobState state, Map<String, JobRecord.Result> results, JobRecord.Usage usage) {
        return new JobRecord("j1", "acme", state, "cpu", T, T, T, T, new JobRecord.Original("k", "jpeg", 1_000, "x", 640, 480), null,
                results, null, 2, usage);
    }

    @Test
    void aDoneJobAddsItsOriginalItsResultsAndItsMeasuredCost() {
        UsageTotals u = UsageTotals.of(job(JobState.DONE, Map.of(
                "thumb", new JobRecord.Result("a", "webp", "image/webp", 256, 256, 9_000),
                "large", new JobRecord.Result("b", "jpeg", "image/jpeg", 1024, 768, 120_000)), new JobRecord.Usage(37, 150_000_000)));
        assertThat(u).isEqualTo(new UsageTotals(1, 1, 0, 37, 1_000, 129_000, 256 * 256 + 1024 * 768, 150_000_000));
        assertThat(u.outputMegapixels()).isEqualTo((256 * 256 + 1024 * 768) / 1e6);
    }

    @Test
    void aFailedJobWithoutResultsOrMeasurementAddsItsOriginalOnly() {
        assertThat(UsageTotals.of(job(JobState.FAILED, null, null))).isEqualTo(new UsageTotals(1, 0, 1, 0, 1_000, 0, 0, 0));
    }

    @Test
    void onlyFinishedJobsAreCounted() {
        assertThatThrownBy(() -> UsageTotals.of(job(JobState.CANCELLED, null, null))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> UsageTotals.of(job(JobState.RUNNING, null, null))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sumsAddAndThePeakIsTheLarger() {
        UsageTotals a = new UsageTotals(1, 1, 0, 10, 100, 50, 4, 300);
        UsageTotals b = new UsageTotals(2, 1, 1, 5, 1, 2, 3, 200);
        assertThat(a.plus(b)).isEqualTo(new UsageTotals(3, 2, 1, 15, 101, 52, 7, 300));
    }

    @Test
    void theStoredFormRoundTripsAndReadsAShorterOneWithZeros() {
        UsageTotals u = new UsageTotals(3, 2, 1, 4_000_000_000_123L, 9_007_199_254_740_991L, 5, 6, 7);
        assertThat(u.encode()).isEqualTo("3,2,1,4000000000123,9007199254740991,5,6,7");
        assertThat(UsageTotals.decode(u.encode())).isEqualTo(u);
        assertThat(UsageTotals.decode("1,1,0")).isEqualTo(new UsageTotals(1, 1, 0, 0, 0, 0, 0, 0));
        assertThat(UsageTotals.decode(null)).isEqualTo(UsageTotals.NONE);
    }
}
