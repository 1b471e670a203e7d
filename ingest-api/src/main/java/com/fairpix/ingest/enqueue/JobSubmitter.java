package com.fairpix.ingest.enqueue;

import com.fairpix.core.error.Rejected;
import com.fairpix.core.error.RetryLater;
import com.fairpix.core.image.ImageHeader;
import com.fairpix.core.job.JobIds;
import com.fairpix.core.job.JobMessage;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.JobState;
import com.fairpix.core.job.OutputSize;
import com.fairpix.core.job.SpecLimits;
import com.fairpix.core.job.JobStore;
import com.fairpix.core.metrics.MetricNames;
import com.fairpix.core.metrics.TenantTags;
import com.fairpix.core.storage.ObjectStore;
import com.fairpix.core.storage.StorageKeys;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.admission.Admission;
import com.fairpix.ingest.admission.AdmissionConfig;
import com.fairpix.ingest.admission.Cost;
import com.fairpix.ingest.admission.Decision;
import com.fairpix.ingest.admission.RateLimitFields;
import com.fairpix.core.resilience.Dependency;
import com.fairpix.ingest.overload.OverloadGuard;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.MeterRegistry;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Accepts one upload: validates it, asks admission control (rate, cost, daily quota, concurrency)
 * with the cost read from the image header, stores the original in S3, records the job as QUEUED in Redis
 * and produces the job message to Kafka, returning only after Kafka acknowledged it.
 */
public final class JobSubmitter {
    private static final Logger log = LoggerFactory.getLogger(JobSubmitter.class);
    /** What a spec may ask for ({@code spec.*}); set once at start-up by {@link #specLimits}. */
    private volatile SpecLimits specLimits = SpecLimits.DEFAULTS;

    private final ObjectStore objects;
    private final JobStore jobs;
    private final IdempotencyKeys idempotencyKeys;
    private final JobQueue queue;
    private final SubmissionCounts counts;
    private final MeterRegistry metrics;
    private final TenantTags tenantTags;
    private final Clock clock;
    private final Admission admission;
    private final AdmissionConfig admissionConfig;
    private final OverloadGuard overload;
    /** Checks a spec's webhookUrl at submission; null accepts none. */
    private final com.fairpix.webhooks.UrlGuard webhookGuard;
    /** Which partition of the job topic each job goes to. */
    private final com.fairpix.core.kafka.TenantPlacement placement;
    private PendingSends pending = PendingSends.NONE;
    private java.time.Duration orphanAfter = java.time.Duration.ofMinutes(10);

    /**
     * @param objects         the object store, already behind the S3 circuit breaker
     * @param idempotencyKeys where Idempotency-Key claims are kept
     * @param queue           the job topics, whose sends the Kafka breaker guards here
     * @param counts          the accepted jobs counted for the autoscaler and the farm's capacity
     * @param overload        breakers, ramp and shedding (see docs/overload.md)
     * @param webhookGuard    checks a spec's webhookUrl (SSRF guard); null refuses per-job URLs
     * @param placement       the tenants' partitions of the job topics
     */
    public JobSubmitter(ObjectStore objects, JobStore jobs, IdempotencyKeys idempotencyKeys, JobQueue queue, SubmissionCounts counts,
                        MeterRegistry metrics, TenantTags tenantTags, Clock clock, Admission admission, AdmissionConfig admissionConfig,
                        OverloadGuard overload, com.fairpix.webhooks.UrlGuard webhookGuard,
                        com.fairpix.core.kafka.TenantPlacement placement) {
        this.placement = placement;
        this.overload = overload;
        this.webhookGuard = webhookGuard;
        this.tenantTags = tenantTags;
        this.admission = admission;
        this.admissionConfig = admissionConfig;
        this.objects = objects;
        this.jobs = jobs;
        this.idempotencyKeys = idempotencyKeys;
        this.queue = queue;
        this.counts = counts;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** Sets the spec limits ({@code spec.*}); the defaults until called. */
    /**
     * Notes each job's send in {@code pending} until it ends, so {@link #reconcileOrphans} can fail
     * a record left QUEUED by a send that failed and could not be marked (none unless set).
     *
     * @param orphanAfter how long after its send began a record still QUEUED and still pending is
     *                    an orphan ({@code ingest.orphan-after-seconds})
     */
    public JobSubmitter reconcileWith(PendingSends pending, java.time.Duration orphanAfter) {
        this.pending = pending;
        this.orphanAfter = orphanAfter;
        return this;
    }

    /**
     * The orphan sweep (issue 34): every send noted pending before now − {@code orphanAfter} whose
     * record is still QUEUED is FAILED {@code enqueue-failed} (its client got a 503, or the ingest
     * died mid-send: the job was never accepted); a send whose record moved on (Kafka did take it,
     * a worker ran it) or is gone is simply forgotten. Safe on every ingest node at once: the record
     * moves only from QUEUED. Redis being away ends the round early; the next one goes on.
     *
     * @return records FAILED by this round
     */
    public int reconcileOrphans() {
        int failed = 0;
        try {
            for (PendingSends.Pending p : pending.olderThan(clock.instant().minus(orphanAfter), 500)) {
                Optional<JobRecord> record = jobs.get(p.tenant(), p.jobId());
                if (record.isPresent() && record.get().state() == JobState.QUEUED) {
                    JobStore.Transition t = jobs.transition(record.get().failed(clock.instant(), "enqueue-failed",
                            "The job's message was never confirmed by the queue; the job was not accepted."), Set.of(JobState.QUEUED));
                    if (t.applied()) {
                        failed++;
                        log.warn("job {} of {} was still QUEUED {} s after its send began and never confirmed: FAILED enqueue-failed",
                                p.jobId(), p.tenant(), java.time.Duration.between(p.since(), clock.instant()).toSeconds());
                    }
                }
                pending.remove(p.tenant(), p.jobId());
            }
        } catch (RuntimeException e) {
            log.info("orphan sweep stopped early: {}", e.toString());
        }
        if (failed > 0) metrics.counter(MetricNames.JOBS_ORPHANED).increment(failed);
        return failed;
    }

    public JobSubmitter specLimits(SpecLimits limits) {
        this.specLimits = limits;
        return this;
    }

    /**
     * The accepted job, whether it is a replay of an earlier request with the same
     * Idempotency-Key, and the admission decision (null for a replay: it was not charged again).
     */
    public record Submission(JobRecord job, boolean replayed, Decision admission) {}

    /**
     * @param image          the upload, already read (and size-checked while reading) into a
     *                       temporary file; the caller closes it after the answer
     * @param specJson       the job spec as JSON
     * @param idempotencyKey the client's Idempotency-Key header, or null
     * @throws Rejected a bad spec, an upload too large, a format not allowed, a bad header, too
     *                  many pixels in or out, a cost that can never fit, an Idempotency-Key reused
     *                  for another request or still in flight, a rate, quota or concurrency limit
     * @throws RetryLater a backend down, or the farm overloaded
     */
    public Submission submit(Tenant tenant, Upload image, String specJson, String idempotencyKey) {
        return submit(tenant, image, specJson, idempotencyKey, null);
    }

    /**
     * As {@link #submit(Tenant, Upload, String, String)}; an {@code auto} encode format is resolved
     * from {@code accept} ({@link JobSpec#resolveAuto}) before the job is stored.
     *
     * @param accept the request's Accept header, or null
     */
    public Submission submit(Tenant tenant, Upload image, String specJson, String idempotencyKey, String accept) {
        // Before any work: while a dependency's breaker is open the answer is a fast 503.
        overload.checkBreakers();
        SpecLimits limits = specLimits.forTenant(tenant.maxPixels());
        JobSpec spec = JobSpec.parse(specJson, tenant.id(), limits);
        if (spec.webhookUrl() != null) {
            if (webhookGuard == null) throw Rejected.invalid("invalid-spec", "The job spec is invalid: webhookUrl is not accepted by this node").with("errors", java.util.List.of("webhookUrl is not accepted"));
            try {
                webhookGuard.check(spec.webhookUrl());
            } catch (com.fairpix.webhooks.UrlGuard.RefusedException e) {
                throw Rejected.invalid("invalid-spec", "The job spec is invalid: webhookUrl: " + e.getMessage()).with("errors", java.util.List.of("webhookUrl: " + e.getMessage()));
            }
        }
        if (image.size() == 0) throw Rejected.invalid("missing-image", "The image is empty.");
        if (image.size() > tenant.maxUploadBytes()) {
            throw Rejected.uploadTooLarge("The upload is " + image.size() + " bytes; tenant '" + tenant.id() + "' accepts at most " + tenant.maxUploadBytes() + " bytes (maxUploadBytes).");
        }
        ImageHeader header = readHeader(tenant, image);
        spec = spec.resolveAuto(accept, header.alpha());
        Map<String, OutputSize.Estimate> outputs = OutputSize.of(spec, header.displayWidth(), header.displayHeight());
        List<String> outputProblems = spec.outputProblems(header.displayWidth(), header.displayHeight(), limits);
        if (!outputProblems.isEmpty()) {
            throw Rejected.unprocessableImage("output-too-large", "The job would make images over the limits: " + String.join("; ", outputProblems))
                    .with("errors", outputProblems);
        }
        String pool = spec.pool() != null ? spec.pool() : tenant.pool();

        String jobId = JobIds.next(clock);
        if (idempotencyKey != null) {
            Optional<JobRecord> earlier = claimIdempotencyKey(tenant.id(), idempotencyKey, jobId, Idempotency.fingerprint(spec, image.sha256()));
            if (earlier.isPresent()) return new Submission(earlier.get(), true, null);
        }
        Decision decision = null;
        try {
            // Admission after validation and the header read (the cost needs the pixels), before any write.
            decision = admission.decide(tenant, pool, Cost.ofJob(admissionConfig, header, image.size(), spec, outputs), jobId);
            if (!decision.allowed()) throw RateLimitFields.problem(tenant, decision);
            overload.checkAdmitted(tenant, pool, decision);
            Instant now = clock.instant();
            String key = StorageKeys.original(tenant.id(), jobId, header.format().extension(), now);
            JobRecord.Original original = new JobRecord.Original(key, header.format().id(), image.size(), image.sha256(), header.displayWidth(), header.displayHeight());
            JobRecord job = new JobRecord(jobId, tenant.id(), JobState.QUEUED, pool, now, null, null, null, original, spec, Map.of(), null, 0);

            putOriginal(key, image, header);
            // Noted before the record exists, so no QUEUED record can be left without it (issue 34).
            notePending(job);
            createRecord(job);
            // One cost unit end to end: the scheduler charges the tokens admission counted.
            enqueue(job, com.fairpix.ingest.admission.Limits.tokens(decision.costNano()), tenant.rate());
            forgetPending(job);
            metrics.counter(MetricNames.JOBS_SUBMITTED, "pool", pool, "tenant", tenantTags.tag(tenant.id())).increment();
            counts.count(pool, tenant.id(), now, com.fairpix.ingest.admission.Limits.tokens(decision.costNano()));
            metrics.summary(MetricNames.UPLOAD_BYTES).record(image.size());
            return new Submission(job, false, decision);
        } catch (RuntimeException e) {
            // Not accepted: free the concurrency slot (the tokens stay spent: a retry storm against a
            // failing backend must not be free).
            if (decision != null && decision.allowed()) releaseLease(tenant.id(), jobId);
            if (idempotencyKey != null) releaseIdempotencyKey(tenant.id(), idempotencyKey, jobId);
            throw e;
        }
    }

    private ImageHeader readHeader(Tenant tenant, Upload image) {
        ImageHeader header;
        try {
            header = image.header();
        } catch (ImageHeader.HeaderException e) {
            if (e.overLimit()) {
                throw Rejected.unprocessableImage("image-too-complex", "The image's structure asks more of the decoder than fairpix allows: " + e.getMessage());
            }
            throw Rejected.unprocessableImage("undecodable-header", "The image header cannot be read: " + e.getMessage());
        }
        if (header == null) {
            throw Rejected.unsupportedImage("The upload is not a JPEG, PNG, WebP, TIFF, BMP, GIF, HEIC or AVIF image (checked by its first bytes).");
        }
        if (!tenant.allowedFormats().contains(header.format().id())) {
            throw Rejected.unsupportedImage("Format " + header.format().id() + " is not allowed for tenant '" + tenant.id() + "' (allowedFormats: " + tenant.allowedFormats() + ").");
        }
        if (header.gatePixels() > tenant.maxPixels()) {
            String decoded = header.gatePixels() > header.pixels() ? " (its decoder allocates " + header.gatePixels() + " pixels on the way)" : "";
            throw Rejected.unprocessableImage("too-many-pixels", "The image is " + header.width() + "x" + header.height() + " = " + header.pixels() + " pixels" + decoded
                    + "; tenant '" + tenant.id() + "' accepts at most " + tenant.maxPixels() + " (maxPixels).");
        }
        if (header.animated()) {
            throw Rejected.unprocessableImage("animated", "Animated images are not supported" + (header.pages() > 1 ? " (this " + header.format().id() + " has at least " + header.pages() + " frames)" : "") + "; fairpix never silently keeps only the first frame.");
        }
        return header;
    }

    private void putOriginal(String key, Upload image, ImageHeader header) {
        try {
            objects.put(key, image.file(), image.size(), header.format().contentType());
        } catch (CallNotPermittedException e) {
            throw overload.breakerOpen(Dependency.S3);
        } catch (RuntimeException e) {
            log.warn("S3 put failed for {}: {}", key, e.toString());
            if (com.fairpix.core.resilience.ClientErrors.is(e)) {
                // S3 refused this object (a 4xx), not the service: not a 503, and not counted by the breaker.
                throw Rejected.unprocessableImage("original-refused", "The object store refused this upload; it cannot be stored as sent.");
            }
            throw RetryLater.dependency("s3", "The object store is not answering; try again shortly.", 5);
        }
    }

    private void createRecord(JobRecord job) {
        try {
            breaker(Dependency.REDIS).executeRunnable(() -> jobs.create(job));
        } catch (CallNotPermittedException e) {
            throw overload.breakerOpen(Dependency.REDIS);
        } catch (JedisException e) {
            log.warn("Redis write failed for job {}: {}", job.id(), e.toString());
            throw RetryLater.dependency("redis", "The job store is not answering; try again shortly.", 5);
        }
    }

    private void notePending(JobRecord job) {
        try {
            pending.add(job.tenant(), job.id(), job.createdAt());
        } catch (JedisException e) {
            log.warn("Redis write failed for job {}: {}", job.id(), e.toString());
            throw RetryLater.dependency("redis", "The job store is not answering; try again shortly.", 5);
        }
    }

    /** The send ended one way or the other; if Redis cannot be told, the sweep finds the record moved on and forgets it. */
    private void forgetPending(JobRecord job) {
        try {
            pending.remove(job.tenant(), job.id());
        } catch (RuntimeException e) {
            log.info("pending send of job {} not forgotten ({}); the orphan sweep will", job.id(), e.toString());
        }
    }

    private void enqueue(JobRecord job, double cost, double tenantRate) {
        JobMessage message = new JobMessage(JobMessage.SCHEMA_VERSION, job.id(), job.tenant(), job.pool(), job.original(), job.spec(), cost, job.createdAt());
        try {
            // The 202 promises the job will run: wait for the broker's acknowledgement (acks=all),
            // but no longer than overload.kafka-produce-timeout-ms; the Kafka breaker counts the
            // failures and slow calls and, once open, answers for Kafka at once.
            java.time.Duration timeout = overload.config().produceTimeout();
            breaker(Dependency.KAFKA).executeCallable(() -> {
                // The partition comes from the tenant's placement (a run of partitions, wider for a tenant
                // allowed more work), not the key's hash alone; the key stays the tenant id.
                int partition = placement.partitionFor(job.tenant(), tenantRate, job.id(), queue.partitions(job.pool()));
                try {
                    queue.send(message, partition, timeout);
                } catch (java.util.concurrent.TimeoutException e) {
                    // No acknowledgement in time is Kafka out (Outages): the breaker counts only outages.
                    throw new RetryLater(RetryLater.Kind.DEPENDENCY, "kafka", "not acknowledged in " + timeout.toMillis() + " ms", 0, e);
                }
                return null;
            });
        } catch (CallNotPermittedException e) {
            markNotAccepted(job);
            throw overload.breakerOpen(Dependency.KAFKA);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw enqueueFailed(job, e);
        } catch (Exception e) {
            throw enqueueFailed(job, e);
        }
    }

    private CircuitBreaker breaker(Dependency d) {
        return overload.breakers().get(d);
    }

    private RuntimeException enqueueFailed(JobRecord job, Exception e) {
        log.warn("Kafka produce failed for job {}: {}", job.id(), e.toString());
        markNotAccepted(job);
        if (com.fairpix.core.resilience.ClientErrors.is(e)) {
            // Kafka refused this message (e.g. RecordTooLarge), not the service: the request's fault,
            // and not counted against the Kafka breaker (Breakers ignores client errors).
            return new Rejected(Rejected.Kind.TOO_LARGE, "job-too-large", "Job too large",
                    "The job's message is over the queue's size limit; send a smaller spec.").with("job", job.id());
        }
        return RetryLater.dependency("kafka", "The job queue is not answering; the job was not accepted. Try again shortly.", 5);
    }

    /**
     * The record says FAILED: the client got a 503. Should a timed-out message still reach
     * Kafka, the worker finds the job FAILED and skips it.
     */
    private void markNotAccepted(JobRecord job) {
        try {
            jobs.transition(job.failed(clock.instant(), "enqueue-failed", "The job could not be queued; it was not accepted."), Set.of(JobState.QUEUED));
            forgetPending(job);
        } catch (RuntimeException ignored) {
            // The client got a 503 and knows to retry; the record stays QUEUED until the orphan sweep
            // (reconcileOrphans) fails it, its send still noted pending.
        }
    }

    /**
     * Claims the key for this request (draft-ietf-httpapi-idempotency-key-header): the first request
     * stores {@code jobId} and its fingerprint; a later one with the same fingerprint gets the
     * earlier job (a replay), or 409 while that one is still being accepted; another fingerprint is 422.
     */
    private Optional<JobRecord> claimIdempotencyKey(String tenant, String idempotencyKey, String jobId, String fingerprint) {
        String key = Idempotency.key(idempotencyKey);
        try {
            if (idempotencyKeys.claim(tenant, key, Idempotency.value(jobId, fingerprint))) return Optional.empty();
            Idempotency.Claim earlierClaim = Idempotency.Claim.parse(idempotencyKeys.get(tenant, key));
            if (earlierClaim == null) throw Idempotency.inFlight();
            if (!earlierClaim.matches(fingerprint)) throw Idempotency.mismatch();
            Optional<JobRecord> earlier = jobs.get(tenant, earlierClaim.jobId());
            if (earlier.isEmpty()) throw Idempotency.inFlight();
            return earlier;
        } catch (JedisException e) {
            throw RetryLater.dependency("redis", "The job store is not answering; try again shortly.", 5);
        }
    }

    private void releaseLease(String tenant, String jobId) {
        try {
            admission.release(tenant, jobId);
        } catch (RuntimeException ignored) {
            // the lease expires with its TTL
        }
    }

    private void releaseIdempotencyKey(String tenant, String idempotencyKey, String jobId) {
        try {
            String key = Idempotency.key(idempotencyKey);
            Idempotency.Claim claim = Idempotency.Claim.parse(idempotencyKeys.get(tenant, key));
            if (claim != null && jobId.equals(claim.jobId())) idempotencyKeys.delete(tenant, key);
        } catch (RuntimeException ignored) {
            // it expires; a retry then gets 409 until then, never a duplicate
        }
    }

    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
