package com.fairpix.ingest.http;

import com.fairpix.core.http.ApiProblem;
import io.javalin.http.Context;

/** The {@code limit} query parameter of list endpoints. */
final class Pagination {
    private Pagination() {}

    /** @throws ApiProblem 400 when {@code limit} is not an integer 1–max */
    static int limit(Context ctx, int defaultLimit, int max) {
        String raw = ctx.queryParam("limit");
        if (raw == null) return defaultLimit;
        try {
            int v = Integer.parseInt(raw);
            if (v >= 1 && v <= max) return v;
        } catch (NumberFormatException ignored) {
            // fall through to the problem
        }
        throw ApiProblem.badRequest("invalid-limit", "limit must be an integer 1–" + max + ".");
    }
}
