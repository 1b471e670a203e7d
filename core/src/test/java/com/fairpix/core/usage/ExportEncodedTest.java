package com.fairpix.core.usage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.job.JobRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link UsageLedger#exportEncoded}: export's rows, the figures in encode()'s form (the CSV's last eight columns). */
class ExportEncodedTest {
    private static final LocalDate D = LocalDate.parse("2026-11-01");

    @Test
    void aLedgerWithoutItsOwnEncodedExportHandsOnExportsRowsEncoded() {
        UsageLedger ledger = new UsageLedger() {
            @Override public boolean record(JobRecord finished) { return false; }
            @Override public List<Day> days(String tenant, LocalDate from, LocalDate to) { return List.of(); }
            @Override public UsageTotals window(String tenant, Instant from, Instant to) { return UsageTotals.NONE; }
            @Override public void export(LocalDate from, LocalDate to, String tenant, RowSink sink) {
                sink.row(D, "acme", new UsageTotals(3, 2, 1, 1500, 100, 200, 3000, 4096));
                sink.row(D.plusDays(1), "beta", UsageTotals.decode("1,1"));
            }
        };
        List<String> rows = new ArrayList<>();
        ledger.exportEncoded(D, D.plusDays(1), null, (day, t, figures) ->
                rows.add(day + "," + new String(t, StandardCharsets.UTF_8) + "," + new String(figures, StandardCharsets.UTF_8)));
        assertThat(rows).containsExactly("2026-11-01,acme,3,2,1,1500,100,200,3000,4096", "2026-11-02,beta,1,1,0,0,0,0,0,0");
    }
}
