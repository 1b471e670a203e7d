package com.fairpix.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fairpix.autoscaler.policy.Decision;
import com.fairpix.autoscaler.policy.PolicyConfig;
import com.fairpix.autoscaler.policy.ScalingPolicy;
import com.fairpix.autoscaler.signal.PoolSignals;
import com.fairpix.core.capacity.SubmittedCost;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.job.JobMessage;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.OutputSize;
import com.fairpix.core.job.SpecLimits;
import com.fairpix.ingest.admission.AdmissionConfig;
import com.fairpix.ingest.admission.Cost;
import com.fairpix.ingest.admission.Limits;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One cost unit end to end, with default settings: for the same job mix, the tokens ingest's
 * admission charges, the cost the worker's fair scheduler charges (from the job's Kafka message)
 * and the backlog the autoscaler computes (lag × the mean cost per job from ingest's per-second
 * counters) are the same number.
 */
class OneCostUnitTest {
    /** A job of the mix: the source's size and its spec. */
    record Job(int width, int height, String spec) {}

    static final List<Job> MIX = List.of(
            // a thumbnail of a phone photo: 12 MP, one variant
            new Job(4000, 3000, "{\"variants\":{\"thumb\":[{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"cover\"}]}}"),
            // a small image, two variants: each counts at least one megapixel
            new Job(640, 480, "{\"variants\":{\"a\":[{\"op\":\"resize\",\"width\":64}],\"b\":[{\"op\":\"flip\"}]}}"),
            // an upscale: counted at what it makes (16 MP), not at what was uploaded
            new Job(100, 100, "{\"variants\":{\"big\":[{\"op\":\"resize\",\"width\":4000,\"height\":4000,\"fit\":\"fill\"}]}}"),
            // a 24 MP original with three variants
            new Job(6000, 4000, "{\"variants\":{\"s\":[{\"op\":\"resize\",\"width\":320}],\"m\":[{\"op\":\"resize\",\"width\":1280}],\"l\":[{\"op\":\"rotate\",\"angle\":90}]}}"));

    @Test
    void admissionTheSchedulerAndTheAutoscalerCountTheSameCost() {
        FairpixConfig defaults = FairpixConfig.load(Map.of(), Map.of());
        // The megapixel model, whose arithmetic is checked below; the unit is one whatever the model.
        AdmissionConfig admission = AdmissionConfig.from(defaults).withCostModel(AdmissionConfig.CostModel.MEGAPIXELS);

        double admitted = 0;
        double charged = 0;
        // Ingest's counters for the autoscaler, as JobSubmitter writes them: per second, INCR of the
        // job count and INCRBYFLOAT of the job's tokens. Two jobs a second here.
        Map<Integer, long[]> jobsPerSecond = new HashMap<>();
        Map<Integer, double[]> costPerSecond = new HashMap<>();
        for (int i = 0; i < MIX.size(); i++) {
            Job j = MIX.get(i);
            JobSpec spec = JobSpec.parse(j.spec(), "t", SpecLimits.DEFAULTS);
            long nano = Cost.ofJob(admission, new com.fairpix.core.image.ImageHeader(com.fairpix.core.image.ImageFormat.JPEG, j.width(), j.height(), 1, false, true),
                    (long) j.width() * j.height() / 4, spec, OutputSize.of(spec, j.width(), j.height()));
            double tokens = Limits.tokens(nano);
            admitted += tokens;
            // The message JobSubmitter.enqueue writes carries the admitted tokens; the worker schedules with schedulingCost().
            JobMessage message = new JobMessage(JobMessage.SCHEMA_VERSION, "j" + i, "t", "cpu", null, spec, tokens, Instant.EPOCH);
            charged += message.schedulingCost();
            jobsPerSecond.computeIfAbsent(i / 2, s -> new long[1])[0]++;
            costPerSecond.computeIfAbsent(i / 2, s -> new double[1])[0] += tokens;
        }
        // 12 + (1 + 1) + 16 + 3 × 24 megapixels at 1 token per megapixel and no base cost.
        assertThat(admitted).isCloseTo(12 + 2 + 16 + 72, within(1e-6));
        assertThat(charged).isCloseTo(admitted, within(1e-9));

        List<String> jobs = new ArrayList<>();
        List<String> costs = new ArrayList<>();
        for (int s = 0; s < jobsPerSecond.size(); s++) {
            jobs.add(Long.toString(jobsPerSecond.get(s)[0]));
            costs.add(Double.toString(costPerSecond.get(s)[0]));
        }
        jobs.add(null); // a second without submissions
        costs.add(null);
        double perJob = SubmittedCost.meanCostPerJob(jobs, costs);

        // All of the mix queued: a lag of MIX.size() messages on one partition.
        Instant now = Instant.parse("2026-12-01T12:00:00Z");
        PoolSignals reading = PoolSignals.of("cpu", now, 0, Map.of(0, (long) MIX.size()), 1, Map.of()).withCostPerJob(perJob);
        PolicyConfig policy = PolicyConfig.from(defaults, "cpu");
        Decision d = ScalingPolicy.stabilized().decide(new ScalingPolicy.Input(policy, List.of(reading), reading, List.of(), null, null, 1, now));
        assertThat(d.inputs().backlog()).isCloseTo(admitted, within(1e-6));
    }

    @Test
    void theMessagesJsonKeepsItsShape() {
        JobMessage m = new JobMessage(JobMessage.SCHEMA_VERSION, "j", "t", "cpu", null, null, 3.5, Instant.EPOCH);
        String json = com.fairpix.core.json.Json.write(m);
        assertThat(json).contains("\"cost\":3.5").doesNotContain("schedulingCost");
        // A message of an earlier build reads back (its cost is whatever that build wrote).
        JobMessage old = com.fairpix.core.json.Json.read("{\"schemaVersion\":1,\"jobId\":\"j\",\"tenant\":\"t\",\"pool\":\"cpu\",\"cost\":2.0,\"submittedAt\":\"2026-12-01T00:00:00Z\"}",
                JobMessage.class);
        assertThat(old.schedulingCost()).isEqualTo(2.0);
        assertThat(new JobMessage(1, "j", "t", "cpu", null, null, Double.NaN, Instant.EPOCH).schedulingCost()).as("a bad value").isEqualTo(1.0);
        assertThat(new JobMessage(1, "j", "t", "cpu", null, null, 1e9, Instant.EPOCH).schedulingCost()).isEqualTo(1e6);
    }
}
