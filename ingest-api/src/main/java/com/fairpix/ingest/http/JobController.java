package com.fairpix.ingest.http;

import com.fairpix.core.error.Rejected;
import com.fairpix.core.error.RetryLater;
import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.http.Problems;
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
import com.fairpix.ingest.enqueue.Upload;
import io.javalin.http.Context;
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
    private final UploadReader uploads;
    private final UploadSlots slots;
    private final OverShareLane lane;
    private final RefusalBudget refusals;
    private final ReadBudget reads;
    private final long listMaxBytes;
    private final int specMaxBytes;
    private final io.micrometer.core.instrument.Counter refusalsCharged;
    private final io.micrometer.core.instrument.Counter refusalsThrottled;

    /**
     * @param uploads      reads bodies into temporary files within their limits
     * @param slots        this node's caps on uploads in flight
     * @param lane         where the uploads of tenants over their share are served (background CPU priority)
     * @param refusals     what this node spends on each tenant's refused uploads
     * @param reads        each tenant's read rate on this node ({@code ingest.tenant-reads-per-second})
     * @param listMaxBytes the most bytes of job records in one page ({@code ingest.list-max-bytes})
     * @param specMaxBytes {@code spec.max-bytes}
     */
    public JobController(Authenticator auth, JobSubmitter submitter, JobStore jobs, ObjectStore objects, Clock clock, Admission admission,
                         UploadReader uploads, UploadSlots slots, OverShareLane lane, RefusalBudget refusals, ReadBudget reads, long listMaxBytes, int specMaxBytes,
                         io.micrometer.core.instrument.MeterRegistry metrics) {
        this.reads = reads;
        this.listMaxBytes = listMaxBytes;
        this.uploads = uploads;
        this.slots = slots;
        this.lane = lane;
        this.refusals = refusals;
        this.refusalsCharged = metrics.counter(com.fairpix.core.metrics.MetricNames.UPLOAD_REFUSALS, "outcome", "charged");
        this.refusalsThrottled = metrics.counter(com.fairpix.core.metrics.MetricNames.UPLOAD_REFUSALS, "outcome", "throttled");
        this.specMaxBytes = specMaxBytes;
        this.admission = admission;
        this.auth = auth;
        this.submitter = submitter;
        this.jobs = jobs;
        this.objects = objects;
        this.clock = clock;
    }

    /**
     * POST /v1/jobs: multipart ({@code image} + {@code spec}) or a raw image body with {@code ?spec=}.
     * The body is read as it arrives into a temporary file, within the tenant's
     * {@code maxUploadBytes} (413 the moment it is passed, chunked or not) and within this node's
     * upload slots (429 for the tenant's, 503 for the node's), and the file is deleted after the answer.
     * A tenant whose uploads this node keeps refusing gets 429 {@code too-many-refusals} before its
     * body is read ({@link RefusalBudget}). A tenant over its share has its upload served on a
     * background-priority thread ({@link OverShareLane}).
     */
    public void submit(Context ctx) {
        Tenant tenant = auth.tenant(ctx.header("Authorization"));
        try {
            refusals.check(tenant.id());
        } catch (ApiProblem e) {
            refusalsThrottled.increment();
            refusals.holdBeforeAnswering(tenant.id());
            throw e;
        }
        lane.serve(ctx, tenant, () -> upload(ctx, tenant));
    }

    /** The upload and its answer; a refusal charges the tenant's refusal budget by the bytes it read. */
    private void upload(Context ctx, Tenant tenant) {
        long[] read = {0};
        try {
            submit(ctx, tenant, read);
        } catch (ApiProblem | Rejected | RetryLater e) {
            ApiProblem refusal = Problems.of(e);
            double cost = RefusalBudget.cost(refusal.status(), refusal.slug(), read[0]);
            if (cost > 0) {
                refusals.charge(tenant.id(), cost);
                refusalsCharged.increment();
            }
            throw e;
        }
    }

    /** The upload itself; {@code read[0]} counts the body bytes read, for the refusal's cost. */
    private void submit(Context ctx, Tenant tenant, long[] read) {
        long declared = ctx.contentLength();
        boolean multipart = ctx.isMultipartFormData();
        long allowed = uploads.limit(tenant.maxUploadBytes()) + (multipart ? specMaxBytes + UploadReader.FRAMING_BYTES : 0);
        if (declared > allowed) {
            throw uploads.overLimit(declared, tenant.maxUploadBytes(), tenant.id());
        }
        if (!multipart) {
            String type = ctx.contentType() == null ? "" : ctx.contentType().toLowerCase(java.util.Locale.ROOT);
            if (!type.startsWith("image/") && !type.startsWith("application/octet-stream")) {
                throw ApiProblem.unsupportedMediaType("Send the image as multipart/form-data (parts 'image' and 'spec') or as a raw image/* body with the spec in the 'spec' query parameter.");
            }
        }
        try (UploadSlots.Slot slot = slots.acquire(tenant.id())) {
            Upload image;
            String spec;
            InputStream body = counted(body(ctx), read);
            if (multipart) {
                UploadReader.Parts parts = uploads.readMultipart(body, ctx.contentType(), tenant.maxUploadBytes(), specMaxBytes, tenant.id());
                image = parts.image();
                spec = parts.spec();
            } else {
                spec = ctx.queryParam("spec");
                image = uploads.readRaw(body, tenant.maxUploadBytes(), tenant.id());
            }
            try (image) {
                JobSubmitter.Submission submission = submitter.submit(tenant, image, spec, ctx.header("Idempotency-Key"), ctx.header("Accept"));
                if (submission.admission() != null) RateLimitFields.headers(submission.admission()).forEach(ctx::header);
                JobView view = JobView.of(submission.job());
                ctx.header("Location", view.self());
                if (submission.replayed()) ctx.header("Idempotent-Replayed", "true");
                ctx.status(202).json(view);
            }
        }
    }

    /** {@code in}, adding every byte read from it to {@code count[0]}. */
    private static InputStream counted(InputStream in, long[] count) {
        return new java.io.FilterInputStream(in) {
            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b >= 0) count[0]++;
                return b;
            }

            @Override
            public int read(byte[] buf, int off, int len) throws IOException {
                int n = super.read(buf, off, len);
                if (n > 0) count[0] += n;
                return n;
            }

            @Override
            public long skip(long n) throws IOException {
                long skipped = super.skip(n);
                count[0] += skipped;
                return skipped;
            }
        };
    }

    private static InputStream body(Context ctx) {
        try {
            return ctx.req().getInputStream();
        } catch (IOException e) {
            throw ApiProblem.badRequest("upload-incomplete", "The request body cannot be read.");
        }
    }

    /** GET /v1/jobs/{id}: 1 read token. */
    public void get(Context ctx) {
        Tenant tenant = auth.tenant(ctx.header("Authorization"));
        reads.take(tenant.id(), 1);
        ctx.json(JobView.of(find(tenant, ctx.pathParam("id"))));
    }

    /**
     * GET /v1/jobs?cursor=&limit=: newest first, read in one Redis round trip, at most
     * {@code ingest.list-max-bytes} of records a page; 1 read token per 20 jobs asked for.
     */
    public void list(Context ctx) {
        Tenant tenant = auth.tenant(ctx.header("Authorization"));
        int limit = Pagination.limit(ctx, 20, 100);
        String cursor = ctx.queryParam("cursor");
        if (cursor != null && !JobIds.isValid(cursor)) throw ApiProblem.badRequest("invalid-cursor", "cursor must be a job id from a previous page's nextCursor.");
        reads.take(tenant.id(), ReadBudget.pageCost(limit));
        JobStore.Page page = jobs.list(tenant.id(), cursor, limit, listMaxBytes);
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
        Tenant tenant = auth.tenant(ctx.header("Authorization"));
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

    /** GET /v1/jobs/{id}/results/{variant}: streams the stored result; 1 read token, and 1 more per MiB it holds. */
    public void result(Context ctx) {
        Tenant tenant = auth.tenant(ctx.header("Authorization"));
        reads.take(tenant.id(), 1);
        JobRecord job = find(tenant, ctx.pathParam("id"));
        String variant = ctx.pathParam("variant");
        Map<String, JobRecord.Result> results = job.results() == null ? Map.of() : job.results();
        JobRecord.Result result = results.get(variant);
        if (result == null) {
            throw ApiProblem.notFound("Job " + job.id() + " has no result '" + variant + "'" + (job.state() == JobState.DONE ? "." : " (the job is " + job.state() + ")."));
        }
        if (result.size() >= 1 << 20) reads.take(tenant.id(), result.size() >> 20);
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
}
