package com.fairpix.ingest.http;

import io.javalin.Javalin;
import java.util.function.Consumer;

/** Every route of the ingest-api, in one place: each a method of the small controller of its resource. */
public final class Routes {
    private Routes() {}

    /** Registers every route on the app it is given ({@link com.fairpix.core.http.ServiceBootstrap#routes}). */
    public static Consumer<Javalin> all(JobController jobs, TenantsController tenants, ApiKeysController keys, AdminJobsController adminJobs,
                                        WebhooksController webhooks, StatusController status,
                                        UsageController usage) {
        return app -> {
            app.post("/v1/jobs", jobs::submit);
            app.get("/v1/jobs", jobs::list);
            app.get("/v1/jobs/{id}", jobs::get);
            app.delete("/v1/jobs/{id}", jobs::cancel);
            app.get("/v1/jobs/{id}/results/{variant}", jobs::result);
            app.get("/v1/usage", usage::tenant);

            app.post("/admin/v1/tenants", tenants::create);
            app.get("/admin/v1/tenants", tenants::list);
            app.get("/admin/v1/tenants/{id}", tenants::get);
            app.patch("/admin/v1/tenants/{id}", tenants::patch);
            app.delete("/admin/v1/tenants/{id}", tenants::delete);
            app.post("/admin/v1/tenants/{id}/suspend", tenants::suspend);
            app.post("/admin/v1/tenants/{id}/activate", tenants::activate);
            app.post("/admin/v1/tenants/{id}/keys", keys::create);
            app.get("/admin/v1/tenants/{id}/keys", keys::list);
            app.delete("/admin/v1/tenants/{id}/keys/{keyId}", keys::revoke);
            app.get("/admin/v1/jobs/{id}", adminJobs::get);
            app.get("/admin/v1/status", status::status);
            app.get("/admin/v1/usage", usage::admin);
            app.post("/admin/v1/tenants/{id}/webhook-secret", webhooks::rotateSecret);
            app.get("/admin/v1/tenants/{id}/webhooks", webhooks::list);
            app.post("/admin/v1/tenants/{id}/webhooks/replay-failed", webhooks::replayFailed);
            app.get("/admin/v1/tenants/{id}/webhooks/{deliveryId}", webhooks::get);
            app.post("/admin/v1/tenants/{id}/webhooks/{deliveryId}/redeliver", webhooks::redeliver);
        };
    }
}
