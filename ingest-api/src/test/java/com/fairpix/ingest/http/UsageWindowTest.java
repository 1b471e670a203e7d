package com.fairpix.ingest.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.http.ApiProblem;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;

class UsageWindowTest {
    static final LocalDate TODAY = LocalDate.parse("2026-12-03");

    static String problem(Runnable r) {
        try {
            r.run();
        } catch (ApiProblem p) {
            assertThat(p.status()).isEqualTo(400);
            return p.slug();
        }
        throw new AssertionError("no problem");
    }

    @Test
    void theExportDefaultsToTheMonthSoFar() {
        assertThat(UsageWindow.of(null, null, TODAY)).isEqualTo(new UsageWindow(LocalDate.parse("2026-12-01"), TODAY));
        assertThat(UsageWindow.of(null, "2026-11-30", TODAY)).isEqualTo(new UsageWindow(LocalDate.parse("2026-11-01"), LocalDate.parse("2026-11-30")));
        assertThat(UsageWindow.of("2026-11-01", "2026-11-30", TODAY).days()).isEqualTo(30);
    }

    @Test
    void aYearIsTheLongestWindowAndOneDayTheShortest() {
        assertThat(UsageWindow.of("2024-01-01", "2024-12-31", TODAY).days()).isEqualTo(366);
        assertThat(UsageWindow.of("2026-12-03", "2026-12-03", TODAY).days()).isEqualTo(1);
        assertThat(problem(() -> UsageWindow.of("2024-01-01", "2025-01-01", TODAY))).isEqualTo("usage-window-too-long");
    }

    @Test
    void badWindowsHaveTheirOwnProblemTypes() {
        assertThat(problem(() -> UsageWindow.of("2026-11-02", "2026-11-01", TODAY))).isEqualTo("usage-window-reversed");
        assertThat(problem(() -> UsageWindow.of("2026-02-30", null, TODAY))).isEqualTo("invalid-date");
        assertThat(problem(() -> UsageWindow.of(null, "03/12/2026", TODAY))).isEqualTo("invalid-date");
        assertThat(problem(() -> UsageWindow.tenant("Acme!"))).isEqualTo("invalid-tenant-id");
        assertThat(UsageWindow.tenant(null)).isNull();
        assertThat(UsageWindow.tenant("acme-shop")).isEqualTo("acme-shop");
    }

    @Test
    void theTenantsDaysAndHoursAreBounded() {
        assertThat(UsageWindow.lastDays(null, TODAY)).isEqualTo(new UsageWindow(LocalDate.parse("2026-11-27"), TODAY));
        assertThat(UsageWindow.lastDays("1", TODAY)).isEqualTo(new UsageWindow(TODAY, TODAY));
        assertThat(UsageWindow.lastDays("92", TODAY).days()).isEqualTo(92);
        assertThat(problem(() -> UsageWindow.lastDays("93", TODAY))).isEqualTo("invalid-days");
        assertThat(problem(() -> UsageWindow.lastDays("0", TODAY))).isEqualTo("invalid-days");
        assertThat(problem(() -> UsageWindow.lastDays("x", TODAY))).isEqualTo("invalid-days");
        assertThat(UsageWindow.hours(null)).isEqualTo(24);
        assertThat(problem(() -> UsageWindow.hours("169"))).isEqualTo("invalid-hours");
    }
}
