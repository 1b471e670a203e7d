package com.fairpix.ingest.http;

import io.javalin.Javalin;
import java.util.function.Consumer;

/** Every route of the ingest-api, in one place. */
public final class Routes {
    private Routes() {}

    /** Registers every route on the app it is given ({@link com.fairpix.core.http.ServiceBootstrap#routes}). */
    public static Consumer<Javalin> all(JobController jobs, AdminController admin, WebhooksController webhooks, StatusController status) {
        return app -> register(app, jobs, admin, webhooks, status);
    }

    private static void register(Javalin app, JobController jobs, AdminController admin, WebhooksController webhooks, StatusController status) {
        app.post("/v1/jobs", jobs::submit);
        app.get("/v1/jobs", jobs::list);
        app.get("/v1/jobs/{id}", jobs::get);
        app.delete("/v1/jobs/{id}", jobs::cancel);
        app.get("/v1/jobs/{id}/results/{variant}", jobs::result);

        app.post("/admin/v1/tenants", admin::createTenant);
        app.get("/admin/v1/tenants", admin::listTenants);
        app.get("/admin/v1/tenants/{id}", admin::getTenant);
        app.patch("/admin/v1/tenants/{id}", admin::patchTenant);
        app.delete("/admin/v1/tenants/{id}", admin::deleteTenant);
        app.post("/admin/v1/tenants/{id}/suspend", admin::suspend);
        app.post("/admin/v1/tenants/{id}/activate", admin::activate);
        app.post("/admin/v1/tenants/{id}/keys", admin::createKey);
        app.get("/admin/v1/tenants/{id}/keys", admin::listKeys);
        app.delete("/admin/v1/tenants/{id}/keys/{keyId}", admin::revokeKey);
        app.get("/admin/v1/jobs/{id}", admin::getJob);
        app.get("/admin/v1/status", status::status);
        app.post("/admin/v1/tenants/{id}/webhook-secret", webhooks::rotateSecret);
        app.get("/admin/v1/tenants/{id}/webhooks", webhooks::list);
        app.post("/admin/v1/tenants/{id}/webhooks/replay-failed", webhooks::replayFailed);
        app.get("/admin/v1/tenants/{id}/webhooks/{deliveryId}", webhooks::get);
        app.post("/admin/v1/tenants/{id}/webhooks/{deliveryId}/redeliver", webhooks::redeliver);
    }
}
