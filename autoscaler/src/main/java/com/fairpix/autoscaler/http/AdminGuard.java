package com.fairpix.autoscaler.http;

import com.fairpix.core.http.ApiProblem;
import io.javalin.http.Context;

/** Checks the admin bearer token, as the ingest-api's admin API does. */
public final class AdminGuard {
    private final String adminToken;

    /** @param adminToken the admin token; empty disables the admin API */
    public AdminGuard(String adminToken) {
        this.adminToken = adminToken == null ? "" : adminToken;
    }

    /** @throws ApiProblem 403 when the admin API is disabled, 401 for a missing or wrong token */
    public void check(Context ctx) {
        if (adminToken.isEmpty()) throw ApiProblem.forbidden("admin-disabled", "The admin API is disabled: set FAIRPIX_ADMIN_TOKEN on the autoscaler.");
        if (!com.fairpix.core.http.BearerToken.matches(ctx.header("Authorization"), adminToken)) {
            throw ApiProblem.unauthorized("Send the admin token as 'Authorization: Bearer ...'.");
        }
    }
}
