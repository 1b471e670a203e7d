package com.fairpix.ingest.http;

import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.tenant.Tenant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * The window of a usage read, parsed and bounded: UTC days {@code from}..{@code to} inclusive.
 * Each bad window is a 400 with its own problem type (docs/usage.md).
 */
record UsageWindow(LocalDate from, LocalDate to) {
    /** Longest admin export window, days (a year, leap day included). */
    static final int MAX_DAYS = 366;
    /** Most days {@code GET /v1/usage?days=} lists. */
    static final int MAX_TENANT_DAYS = 92;
    /** Longest jobs-by-state window of {@code GET /v1/usage?hours=}, hours. */
    static final int MAX_HOURS = 168;

    long days() { return ChronoUnit.DAYS.between(from, to) + 1; }

    /**
     * The admin export's window: {@code from} defaults to the first day of {@code to}'s month,
     * {@code to} to {@code today}.
     */
    static UsageWindow of(String fromParam, String toParam, LocalDate today) {
        LocalDate to = toParam == null ? today : date("to", toParam);
        LocalDate from = fromParam == null ? to.withDayOfMonth(1) : date("from", fromParam);
        if (from.isAfter(to)) {
            throw ApiProblem.badRequest("usage-window-reversed", "from (" + from + ") is after to (" + to + "); both are UTC days, inclusive.");
        }
        long days = ChronoUnit.DAYS.between(from, to) + 1;
        if (days > MAX_DAYS) {
            throw ApiProblem.badRequest("usage-window-too-long", "from " + from + " to " + to + " is " + days + " days; a usage read covers at most "
                    + MAX_DAYS + " days: split it.");
        }
        return new UsageWindow(from, to);
    }

    /** The last {@code days} UTC days up to {@code today} ({@code ?days=}, default 7, 1–{@value #MAX_TENANT_DAYS}). */
    static UsageWindow lastDays(String daysParam, LocalDate today) {
        int days = bounded("days", daysParam, 7, MAX_TENANT_DAYS, "invalid-days");
        return new UsageWindow(today.minusDays(days - 1L), today);
    }

    /** {@code ?hours=}: default 24, 1–{@value #MAX_HOURS}. */
    static int hours(String hoursParam) {
        return bounded("hours", hoursParam, 24, MAX_HOURS, "invalid-hours");
    }

    /** {@code ?tenant=}: null when absent; a malformed id is a 400 {@code invalid-tenant-id}. */
    static String tenant(String tenantParam) {
        if (tenantParam == null || tenantParam.isEmpty()) return null;
        if (!Tenant.ID.matcher(tenantParam).matches()) {
            throw ApiProblem.badRequest("invalid-tenant-id", "tenant must be a tenant id ([a-z0-9][a-z0-9-]{1,62}).");
        }
        return tenantParam;
    }

    private static LocalDate date(String name, String value) {
        try {
            return LocalDate.parse(value);
        } catch (DateTimeParseException e) {
            throw ApiProblem.badRequest("invalid-date", name + " must be a UTC day as YYYY-MM-DD (e.g. 2026-11-01), got '" + clip(value) + "'.");
        }
    }

    private static int bounded(String name, String value, int dflt, int max, String problem) {
        if (value == null) return dflt;
        try {
            int v = Integer.parseInt(value);
            if (v >= 1 && v <= max) return v;
        } catch (NumberFormatException ignored) {
            // fall through to the problem
        }
        throw ApiProblem.badRequest(problem, name + " must be an integer 1–" + max + ".");
    }

    private static String clip(String s) {
        String t = s.length() > 40 ? s.substring(0, 40) + "…" : s;
        return t.replaceAll("[^\\x20-\\x7e…]", "?");
    }
}
