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
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
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
        Writer w = new BufferedWriter(new OutputStreamWriter(body(ctx), StandardCharsets.UTF_8), 1 << 16);
        w.write(CSV_HEADER);
        w.write('\n');
        StringBuilder line = new StringBuilder(128);
        ledger.export(window.from(), window.to(), tenant, (day, t, u) -> {
            line.setLength(0);
            line.append(day).append(',').append(t).append(',').append(u.jobs()).append(',').append(u.done()).append(',').append(u.failed())
                    .append(',').append(u.cpuMillis()).append(',').append(u.bytesIn()).append(',').append(u.bytesOut()).append(',')
                    .append(u.outputPixels()).append(',').append(u.peakRssBytes()).append('\n');
            try {
                w.append(line);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        w.close();
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
