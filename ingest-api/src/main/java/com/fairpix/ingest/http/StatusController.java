package com.fairpix.ingest.http;

import com.fairpix.ingest.auth.Authenticator;
import com.fairpix.ingest.overload.OverloadGuard;
import io.javalin.http.Context;

/** GET /admin/v1/status: this node's farm view (breakers, ramp level, shedding) and every registered ingest node's own state. */
public final class StatusController {
    private final Authenticator auth;
    private final OverloadGuard overload;

    public StatusController(Authenticator auth, OverloadGuard overload) {
        this.auth = auth;
        this.overload = overload;
    }

    public void status(Context ctx) {
        auth.admin(ctx);
        ctx.json(overload.status());
    }
}
