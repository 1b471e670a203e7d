package com.fairpix.ingest.http;

import com.fairpix.core.error.ApiProblem;
import com.fairpix.core.job.JobIds;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.storage.ObjectStore;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.admission.Admission;
import com.fairpix.ingest.admission.RateLimitFields;
import com.fairpix.ingest.auth.Authenticator;
import com.fairpix.ingest.enqueue.JobSubmitter;
import io.javalin.http.Context;
import io.javalin.http.UploadedFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The tenant job API: parse the request, call the service, render the answer. */
public final class JobController {
    private final Authenticator auth;
    private final JobSubmitter submitter;
    private final JobStore jobs;
    private final ObjectStore objects;
    private final Clock clock;
    private final Admission admission;

    public JobController(Authenticator auth, JobSubmitter submitter, JobStore jobs, ObjectStore objects, Clock clock, Admission admission) {
        this.admission = admission;
        this.auth = auth;
        this.submitter = submitter;
        this.jobs = jobs;
        this.objects = objects;
        this.clock = clock;
    }

    /** POST /v1/jobs: multipart ({@code image} + {@code spec}) or a raw image body with {@code ?spec=}. */
    public void submit(Context ctx) {
        Tenant tenant = auth.tenant(ctx);
        long declared = ctx.contentLength();
        if (declared > tenant.maxUploadBytes() + 64 * 1024) { // multipart framing adds a little
            throw ApiProblem.tooLarge("The request is " + declared + " bytes; tenant '" + tenant.id() + "' accepts images of at most " + tenant.maxUploadBytes() + " bytes (maxUploadBytes).");
        }
        byte[] image;
        String spec;
        if (ctx.isMultipartFormData()) {
            UploadedFile file = ctx.uploadedFile("image");
            if (file == null) throw ApiProblem.badRequest("missing-image", "The multipart request has no 'image' part.");
            image = readAll(file.content());
            spec = ctx.formParam("spec");
            if (spec == null && ctx.uploadedFile("spec") != null) spec = new String(readAll(ctx.uploadedFile("spec").content()), java.nio.charset.StandardCharsets.UTF_8);
        } else {
            String type = ctx.contentType() == null ? "" : ctx.contentType().toLowerCase();
            if (!type.startsWith("image/") && !type.startsWith("application/octet-stream")) {
                throw ApiProblem.unsupportedMediaType("Send the image as multipart/form-data (parts 'image' and 'spec') or as a raw image/* body with the spec in the 'spec' query parameter.");
            }
            image = ctx.bodyAsBytes();
            spec = ctx.queryParam("spec");
        }
        JobSubmitter.Submission submission = submitter.submit(tenant, image, spec, ctx.header("Idempotency-Key"));
        if (submission.admission() != null) RateLimitFields.headers(submission.admission()).forEach(ctx::header);
        JobView view = JobView.of(submission.job());
        ctx.header("Location", view.self());
        if (submission.replayed()) ctx.header("Idempotent-Replayed", "true");
        ctx.status(202).json(view);
    }

    /** GET /v1/jobs/{id}. */
    public void get(Context ctx) {
        Tenant tenant = auth.tenant(ctx);
        ctx.json(JobView.of(find(tenant, ctx.pathParam("id"))));
    }

    /** GET /v1/jobs?cursor=&limit=: newest first. */
    public void list(Context ctx) {
        Tenant tenant = auth.tenant(ctx);
        int limit = Pagination.limit(ctx, 20, 100);
        String cursor = ctx.queryParam("cursor");
        if (cursor != null && !JobIds.isValid(cursor)) throw ApiProblem.badRequest("invalid-cursor", "cursor must be a job id from a previous page's nextCursor.");
        JobStore.Page page = jobs.list(tenant.id(), cursor, limit);
        List<JobView> views = page.jobs().stream().map(JobView::of).toList();
        if (page.nextCursor() != null) {
            ctx.header("Link", "</v1/jobs?cursor=" + page.nextCursor() + "&limit=" + limit + ">; rel=\"next\"");
        }
        java.util.Map<String, Object> body = new java.util.LinkedHashMap<>();
        body.put("jobs", views);
        body.put("nextCursor", page.nextCursor());
        ctx.json(body);
    }

    /** DELETE /v1/jobs/{id}: cancels a job still QUEUED; 409 otherwise. */
    public void cancel(Context ctx) {
        Tenant tenant = auth.tenant(ctx);
        JobRecord job = find(tenant, ctx.pathParam("id"));
        JobStore.Transition t = jobs.transition(job.cancelled(clock.instant()), Set.of(JobState.QUEUED));
        if (!t.applied()) {
            throw ApiProblem.conflict("not-cancellable", "Job " + job.id() + " is " + t.found() + "; only QUEUED jobs can be cancelled.");
        }
        try {
            admission.release(tenant.id(), job.id()); // a cancelled job frees its concurrency slot
        } catch (RuntimeException ignored) {
            // the lease expires with its TTL
        }
        ctx.json(JobView.of(find(tenant, job.id())));
    }

    /** GET /v1/jobs/{id}/results/{variant}: streams the stored result. */
    public void result(Context ctx) {
        Tenant tenant = auth.tenant(ctx);
        JobRecord job = find(tenant, ctx.pathParam("id"));
        String variant = ctx.pathParam("variant");
        Map<String, JobRecord.Result> results = job.results() == null ? Map.of() : job.results();
        JobRecord.Result result = results.get(variant);
        if (result == null) {
            throw ApiProblem.notFound("Job " + job.id() + " has no result '" + variant + "'" + (job.state() == JobState.DONE ? "." : " (the job is " + job.state() + ")."));
        }
        try {
            InputStream in = objects.open(result.key());
            ctx.contentType(result.contentType()).header("Content-Length", Long.toString(result.size())).result(in);
        } catch (ObjectStore.ObjectNotFoundException e) {
            throw ApiProblem.notFound("The result '" + variant + "' of job " + job.id() + " is no longer stored.");
        } catch (RuntimeException e) {
            throw ApiProblem.unavailable("s3", "The object store is not answering; try again shortly.", 5);
        }
    }

    private JobRecord find(Tenant tenant, String id) {
        // An unknown id, a malformed id and another tenant's id all answer the same 404.
        if (!JobIds.isValid(id)) throw ApiProblem.notFound("No job " + id + ".");
        return jobs.get(tenant.id(), id).orElseThrow(() -> ApiProblem.notFound("No job " + id + "."));
    }

    private static byte[] readAll(InputStream in) {
        try (in) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
