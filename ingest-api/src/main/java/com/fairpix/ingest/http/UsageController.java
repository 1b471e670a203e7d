package com.fairpix.ingest.http;

import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.json.Json;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.usage.UsageLedger;
import com.fairpix.core.usage.UsageTotals;
import com.fairpix.ingest.admission.Admission;
import com.fairpix.ingest.admission.Decision;
import com.fairpix.ingest.admission.Limits;
import com.fairpix.ingest.auth.Authenticator;
import com.fasterxml.jackson.core.JsonGenerator;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Usage: {@code GET /v1/usage} (the calling tenant's own standing and measured cost, nobody
 * else's) and {@code GET /admin/v1/usage} (every tenant's daily figures, JSON or CSV for billing).
 * docs/usage.md says what each figure means.
 */
public final class UsageController {
    /** The CSV export's header: one row per tenant-day, exact integers. */
    static final String CSV_HEADER = "day,tenant,jobs,done,failed,cpu_ms,bytes_in,bytes_out,output_pixels,peak_rss_bytes";
    private static final long DAY_MICROS = 86_400_000_000L;

    private final Authenticator auth;
    private final Admission admission;
    private final UsageLedger ledger;
    private final Clock clock;

    public UsageController(Authenticator auth, Admission admission, UsageLedger ledger, Clock clock) {
        this.auth = auth;
        this.admission = admission;
        this.ledger = ledger;
        this.clock = clock;
    }

    /** GET /v1/usage?days=&hours=: the tenant's quota, rate, concurrency, recent jobs and daily cost. */
    public void tenant(Context ctx) {
        Tenant tenant = auth.tenant(ctx.header("Authorization"));
        Instant now = clock.instant();
        UsageWindow days = UsageWindow.lastDays(ctx.queryParam("days"), LocalDate.ofInstant(now, ZoneOffset.UTC));
        int hours = UsageWindow.hours(ctx.queryParam("hours"));
        Decision standing = admission.standing(tenant);
        Limits l = standing.limits();

        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenant", tenant.id());
        out.put("at", now.toString());
        long dayIndex = Math.floorDiv(standing.nowMicros() - l.dayOffsetMicros(), DAY_MICROS);
        long resetMicros = (dayIndex + 1) * DAY_MICROS + l.dayOffsetMicros();
        out.put("quota", ordered("daily", l.dailyQuota(), "used", standing.dailyUsed(), "left", Math.max(0, l.dailyQuota() - standing.dailyUsed()),
                "resetsAt", Instant.EPOCH.plus(resetMicros / 1000, java.time.temporal.ChronoUnit.MILLIS).toString()));
        out.put("rate", ordered("rate", tenant.rate(), "guaranteedRate", l.rateMilli() / 1000.0, "burst", l.burstNano() / 1e9,
                "tokensLeft", standing.remainingNano() / 1e9));
        out.put("concurrency", ordered("max", l.maxConcurrent(), "inUse", standing.leases()));
        Instant windowFrom = now.minus(Duration.ofHours(hours));
        UsageTotals recent = ledger.window(tenant.id(), windowFrom, now);
        out.put("jobs", ordered("from", windowFrom.truncatedTo(java.time.temporal.ChronoUnit.HOURS).toString(), "to", now.toString(), "hours", hours,
                "inFlight", standing.leases(), "done", recent.done(), "failed", recent.failed()));
        List<Map<String, Object>> daily = new ArrayList<>();
        for (UsageLedger.Day d : ledger.days(tenant.id(), days.from(), days.to())) daily.add(day(d.day(), d.usage()));
        out.put("days", daily);
        if (standing.fallback()) out.put("approximate", "admission's store is unreachable: quota, tokens and concurrency are this node's local view");
        ctx.json(out);
    }

    /** GET /admin/v1/usage?from=&to=&tenant=&format=json|csv: every tenant's daily figures, streamed. */
    public void admin(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        UsageWindow window = UsageWindow.of(ctx.queryParam("from"), ctx.queryParam("to"), LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC));
        String tenant = UsageWindow.tenant(ctx.queryParam("tenant"));
        String format = ctx.queryParam("format") == null ? "json" : ctx.queryParam("format");
        if (!format.equals("json") && !format.equals("csv")) throw ApiProblem.badRequest("invalid-format", "format must be json or csv.");
        try {
            if (format.equals("csv")) csv(ctx, window, tenant);
            else json(ctx, window, tenant);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void csv(Context ctx, UsageWindow window, String tenant) throws IOException {
        ctx.contentType("text/csv; charset=utf-8");
        ctx.header("Content-Disposition", "attachment; filename=\"fairpix-usage-" + window.from() + "-" + window.to() + ".csv\"");
        java.io.OutputStream body = body(ctx);
        // The stored figures are the CSV's last eight columns (UsageTotals.encode(): jobs .. peak RSS, in
        // CSV_HEADER's order), so each row is copied together from bytes, nothing parsed or formatted.
        byte[] buf = new byte[1 << 16];
        int[] at = {0};
        write(body, buf, at, (CSV_HEADER + "\n").getBytes(StandardCharsets.US_ASCII));
        LocalDate[] dayOf = {null};
        byte[][] dayText = {null};
        ledger.exportEncoded(window.from(), window.to(), tenant, (day, t, figures) -> {
            if (!day.equals(dayOf[0])) {
                dayOf[0] = day;
                dayText[0] = (day + ",").getBytes(StandardCharsets.US_ASCII);
            }
            if (at[0] + dayText[0].length + t.length + figures.length + 2 > buf.length) flush(body, buf, at);
            write(body, buf, at, dayText[0]);
            write(body, buf, at, t);
            buf[at[0]++] = ',';
            write(body, buf, at, figures);
            buf[at[0]++] = '\n';
        });
        flush(body, buf, at);
        body.close();
    }

    /** Appends {@code bytes} to {@code buf} (filled up to {@code at[0]}), flushing it to {@code out} first when full. */
    private static void write(java.io.OutputStream out, byte[] buf, int[] at, byte[] bytes) {
        if (at[0] + bytes.length > buf.length) {
            flush(out, buf, at);
            if (bytes.length > buf.length) {
                flushBytes(out, bytes, bytes.length);
                return;
            }
        }
        System.arraycopy(bytes, 0, buf, at[0], bytes.length);
        at[0] += bytes.length;
    }

    private static void flush(java.io.OutputStream out, byte[] buf, int[] at) {
        flushBytes(out, buf, at[0]);
        at[0] = 0;
    }

    private static void flushBytes(java.io.OutputStream out, byte[] bytes, int length) {
        try {
            out.write(bytes, 0, length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void json(Context ctx, UsageWindow window, String tenant) throws IOException {
        ctx.contentType("application/json");
        java.io.OutputStream body = body(ctx);
        JsonGenerator g = Json.mapper().getFactory().createGenerator(body);
        g.writeStartObject();
        g.writeStringField("from", window.from().toString());
        g.writeStringField("to", window.to().toString());
        if (tenant != null) g.writeStringField("tenant", tenant);
        g.writeArrayFieldStart("rows");
        ledger.export(window.from(), window.to(), tenant, (day, t, u) -> {
            try {
                g.writeStartObject();
                g.writeStringField("day", day.toString());
                g.writeStringField("tenant", t);
                figures(g, u);
                g.writeEndObject();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        g.writeEndArray();
        g.writeEndObject();
        g.flush();
        body.close();
    }

    /**
     * The export's body: gzip at its fastest level when the client takes it (a month of 10,000
     * tenants is ~26 MB of CSV and ~5x less gzipped: the transfer, not Redis, is most of the time).
     */
    private static java.io.OutputStream body(Context ctx) throws IOException {
        String accept = ctx.header("Accept-Encoding");
        if (accept == null || !accept.toLowerCase(java.util.Locale.ROOT).contains("gzip")) return ctx.res().getOutputStream();
        ctx.header("Content-Encoding", "gzip");
        ctx.header("Vary", "Accept-Encoding");
        return new java.util.zip.GZIPOutputStream(ctx.res().getOutputStream(), 1 << 16) {
            { def.setLevel(java.util.zip.Deflater.BEST_SPEED); }
        };
    }

    private static void figures(JsonGenerator g, UsageTotals u) throws IOException {
        g.writeNumberField("jobs", u.jobs());
        g.writeNumberField("done", u.done());
        g.writeNumberField("failed", u.failed());
        g.writeNumberField("cpuMillis", u.cpuMillis());
        g.writeNumberField("bytesIn", u.bytesIn());
        g.writeNumberField("bytesOut", u.bytesOut());
        g.writeNumberField("outputPixels", u.outputPixels());
        g.writeNumberField("peakRssBytes", u.peakRssBytes());
    }

    private static Map<String, Object> day(LocalDate day, UsageTotals u) {
        Map<String, Object> m = ordered("day", day.toString(), "jobs", u.jobs(), "done", u.done(), "failed", u.failed(),
                "cpuSeconds", u.cpuSeconds(), "cpuMillis", u.cpuMillis(), "bytesIn", u.bytesIn(), "bytesOut", u.bytesOut());
        m.put("outputMegapixels", u.outputMegapixels());
        m.put("outputPixels", u.outputPixels());
        m.put("peakRssBytes", u.peakRssBytes());
        return m;
    }

    private static Map<String, Object> ordered(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }
}
