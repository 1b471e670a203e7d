package com.fairpix.core.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import java.util.Map;

/**
 * The HELP text of every fairpix metric family, in one place, and the registry filter that puts
 * it on every meter registered without a description (most counters are made where they are
 * counted, {@code registry.counter(name, tags)}, which takes none). Also keeps the exposition
 * clean for {@code promtool check metrics}: two of Micrometer's processor meters break its lint
 * ({@code process_cpu_time_ns_total}, an abbreviated unit; {@code system_cpu_count}, a {@code _count}
 * suffix on a gauge): the first is dropped ({@code process_cpu_usage} says the same), the second
 * is exported as {@code system_cpu_processors}.
 */
public final class MetricHelp {
    private MetricHelp() {}

    /** Micrometer name → HELP. Units are in the names' suffixes and stated here. */
    static final Map<String, String> HELP = Map.ofEntries(
            Map.entry(MetricNames.JOBS_SUBMITTED, "Jobs accepted by ingest (202), by pool and tenant."),
            Map.entry(MetricNames.JOBS_REJECTED, "Jobs refused by ingest, by reason."),
            Map.entry(MetricNames.UPLOAD_BYTES, "Size of accepted uploads, bytes."),
            Map.entry(MetricNames.WORKER_CAPACITY, "Cost units per second this worker replica completes while saturated (its measured capacity), by pool."),
            Map.entry(MetricNames.ADMISSION_CAPACITY, "Capacity C admission hands out in a pool, tokens per second (measured capacity x headroom, or pinned; 0 = none)."),
            Map.entry(MetricNames.ADMISSION_GUARANTEES, "Sum of the guaranteed rates of the tenants with a job accepted into the pool in the last 120 s, tokens per second."),
            Map.entry(MetricNames.ADMISSION_OVERCOMMIT, "Sum of active tenants' guarantees divided by the pool's measured capacity (above 1: guarantees are scaled down)."),
            Map.entry(MetricNames.ADMISSION_GUARANTEE_SCALE, "Factor applied to every guaranteed rate in the pool: max-min, the water level (a tenant is guaranteed it x min(rate, measured capacity)); proportional, min(1, measured capacity / sum of guarantees)."),
            Map.entry(MetricNames.ADMISSION_DEMAND, "Tokens/s the pool's tenants asked for, admitted or refused, over the last 4 s on every ingest node, each tenant counted up to its rate."),
            Map.entry(MetricNames.ADMISSION_TENANT_DEMAND, "Tokens/s one tenant asked for in the pool over the last 4 s, all ingest nodes; only the 10 tenants asking most have a series."),
            Map.entry(MetricNames.ADMISSION_TENANT_GUARANTEE, "Guaranteed rate admission gives the tenant in the pool now, tokens/s (its max-min or proportional share); only the 10 tenants asking most have a series."),
            Map.entry(MetricNames.ADMISSION_ACTIVE_TENANTS, "Tenants with a job accepted into the pool in the last 120 s."),
            Map.entry(MetricNames.UPLOAD_REFUSALS, "Refused uploads per tenant budget: charged (a refusal counted against the tenant) or throttled (429 too-many-refusals before the body was read)."),
            Map.entry(MetricNames.INGEST_OVER_SHARE_UPLOADS, "Uploads served on background-priority threads because their tenant asked for more than its guarantee (ingest.over-share-nice)."),
            Map.entry(MetricNames.JOBS_COMPLETED, "Jobs a worker finished, by pool, tenant and outcome."),
            Map.entry(MetricNames.TENANT_JOB_CPU, "CPU seconds of finished jobs' image work, as measured where it ran (a processor process, or the processing thread in-process), by tenant."),
            Map.entry(MetricNames.JOB_PEAK_RSS, "Peak resident memory of finished jobs, bytes, measured from their processor process (not recorded in-process), by tenant."),
            Map.entry(MetricNames.TRUE_UP_TOKENS, "Tokens charged to tenants after their jobs for CPU spent past the estimate (true-up), by tenant."),
            Map.entry(MetricNames.JOB_PROCESSING, "Time a job spent being processed by a worker, seconds."),
            Map.entry(MetricNames.JOB_QUEUE_WAIT, "Time a job waited between acceptance and the start of its processing, seconds."),
            Map.entry(MetricNames.JOBS_RUNNING, "Jobs on a worker's processing threads now."),
            Map.entry(MetricNames.JOBS_ORPHANED, "Job records the ingest's orphan sweep FAILED enqueue-failed: still QUEUED long after their send to Kafka began and was never confirmed."),
            Map.entry(MetricNames.JOBS_PARKED, "Job attempts a dependency outage (redis, kafka, s3) ended: the job was parked and retried after a back-off without spending an attempt."),
            Map.entry(MetricNames.WORKER_JOB_ERRORS, "Job attempts that ended in a Java Error (by class) or found their attempts used up by crashed workers (attempts-exhausted)."),
            Map.entry(MetricNames.CLIENT_ERRORS, "Requests refused for the client's own fault (4xx), by HTTP status and problem type."),
            Map.entry(MetricNames.JOBS_BUFFERED, "Jobs buffered in a worker's scheduler, waiting for a processing thread."),
            Map.entry(MetricNames.JOBS_ABANDONED, "Jobs the worker's watchdog failed because one step ran past twice the job time limit."),
            Map.entry(MetricNames.READ_AHEAD_RECORDS, "Job records a worker holds in memory."),
            Map.entry(MetricNames.READ_AHEAD_BYTES, "Bytes of job records a worker holds in memory."),
            Map.entry(MetricNames.TENANT_QUEUE_AGE, "Age of a tenant's oldest job waiting in a worker, seconds."),
            Map.entry(MetricNames.TENANT_HELD_BACK, "A tenant's jobs a worker read past and has not fetched again."),
            Map.entry(MetricNames.TENANT_READ_PAST, "A tenant's job records read past because its buffer was full."),
            Map.entry(MetricNames.NATIVE_MEMORY_RESERVED, "Native pixel memory reserved by running jobs, bytes."),
            Map.entry(MetricNames.TENANT_SERVICE, "Cost units of work a worker did for a tenant."),
            Map.entry(MetricNames.FAIRNESS_INDEX, "Jain's fairness index over backlogged tenants' weight-normalised service in the last 60 s window (1 = fair)."),
            Map.entry(MetricNames.WEBHOOK_ATTEMPTS, "Webhook attempts by outcome (success, failure, refused) and tenant."),
            Map.entry(MetricNames.WEBHOOK_ATTEMPT_DURATION, "Duration of one webhook attempt, seconds."),
            Map.entry(MetricNames.WEBHOOK_DEAD_LETTERED, "Webhook deliveries dead-lettered after their last attempt (or disabled by a 410)."),
            Map.entry(MetricNames.WEBHOOK_DEFERRED, "Webhook attempts put back without being made, by reason (endpoint-busy, tenant-busy, dispatcher-busy, breaker-open)."),
            Map.entry(MetricNames.WEBHOOK_PENDING, "Webhook deliveries waiting for an attempt (due now or later)."),
            Map.entry(MetricNames.AUTOSCALER_DESIRED_REPLICAS, "Replicas the autoscaler wants, by pool."),
            Map.entry(MetricNames.AUTOSCALER_ACTUAL_REPLICAS, "Replicas the actuator reports running, by pool."),
            Map.entry(MetricNames.AUTOSCALER_DECISIONS, "Autoscaler decisions (one per evaluation period), by pool and reason."),
            Map.entry(MetricNames.AUTOSCALER_CONSUMER_LAG, "Consumer lag of the pool's worker group at the last good reading, messages."),
            Map.entry(MetricNames.AUTOSCALER_INGEST_QPS, "Ingest submissions per second to the pool at the last good reading."),
            Map.entry(MetricNames.AUTOSCALER_FAILED_READINGS, "Autoscaler signal readings that failed (it held), by pool."),
            Map.entry(MetricNames.QUOTA_CONSUMED, "Tokens (cost units) admitted, by tenant."),
            Map.entry(MetricNames.QUOTA_REMAINING, "Tokens left in a tenant's guaranteed bucket after its last decision (negative: debt)."),
            Map.entry(MetricNames.QUOTA_REJECTIONS, "Enforced admission rejections, by tenant and reason (rate, daily-quota, concurrency, cost-exceeds-burst, backend)."),
            Map.entry(MetricNames.QUOTA_BORROWED, "Tokens admitted above the tenant's guarantee, borrowed from the pool's idle capacity."),
            Map.entry(MetricNames.QUOTA_SHADOW_REJECTIONS, "Decisions a policy in shadow mode would have rejected (counted, not enforced), by tenant and reason."),
            Map.entry(MetricNames.QUOTA_FALLBACK_DECISIONS, "Admission decisions taken on the local per-node budget because Redis was unreachable, by tenant."),
            Map.entry(MetricNames.OVERLOAD_SHED, "Requests answered 503 by overload protection, by reason (breaker-*, ramp, shed-borrowed, shed-reserved, uploads-in-flight)."),
            Map.entry(MetricNames.OVERLOAD_RAMP_LEVEL, "The farm's admission level during a ramped recovery, 0..1 (1 = normal, 0 = a breaker is open)."),
            Map.entry(MetricNames.OVERLOAD_SHEDDING_LEVEL, "Shedding level of a pool: 0 none, 1 borrowed traffic shed, 2 all but the reserved share shed."),
            Map.entry(MetricNames.OVERLOAD_BACKLOG, "A pool's backlog as this ingest node last read it, seconds of queue time."),
            Map.entry(MetricNames.OVERLOAD_FARM_BREAKER_OPEN, "1 while the farm view holds a dependency's circuit breaker open (on this node or another), by dependency."));

    /** The HELP text of a fairpix metric family (its Micrometer name); null for one not listed. */
    public static String of(String name) {
        return HELP.get(name);
    }

    /** Adds the filters to {@code registry}; call before any meter is registered. */
    public static <R extends MeterRegistry> R applyTo(R registry) {
        registry.config()
                .meterFilter(MeterFilter.denyNameStartsWith("process.cpu.time"))
                .meterFilter(new MeterFilter() {
                    @Override
                    public Meter.Id map(Meter.Id id) {
                        String name = id.getName().equals("system.cpu.count") ? "system.cpu.processors" : id.getName();
                        String help = id.getDescription() == null || id.getDescription().isBlank() ? HELP.get(name) : id.getDescription();
                        if (name.equals(id.getName()) && java.util.Objects.equals(help, id.getDescription())) return id;
                        return new Meter.Id(name, Tags.of(id.getTagsAsIterable()), id.getBaseUnit(), help, id.getType());
                    }
                });
        return registry;
    }
}
