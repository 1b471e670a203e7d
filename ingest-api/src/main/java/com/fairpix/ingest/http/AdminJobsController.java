package com.fairpix.ingest.http;

import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.job.JobIds;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobStore;
import com.fairpix.ingest.auth.Authenticator;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;

/** The admin API's jobs, GET /admin/v1/jobs/{id}, guarded by the admin token: any tenant's job. */
public final class AdminJobsController {
    private final Authenticator auth;
    private final JobStore jobs;

    public AdminJobsController(Authenticator auth, JobStore jobs) {
        this.auth = auth;
        this.jobs = jobs;
    }

    /** GET /admin/v1/jobs/{id}: the job, with its tenant. */
    public void get(Context ctx) {
        auth.admin(ctx.header("Authorization"));
        String id = ctx.pathParam("id");
        if (!JobIds.isValid(id)) throw ApiProblem.notFound("No job " + id + ".");
        String tenant = jobs.tenantOf(id).orElseThrow(() -> ApiProblem.notFound("No job " + id + "."));
        JobRecord job = jobs.get(tenant, id).orElseThrow(() -> ApiProblem.notFound("No job " + id + "."));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenant", tenant);
        out.put("job", JobView.of(job));
        ctx.json(out);
    }
}
