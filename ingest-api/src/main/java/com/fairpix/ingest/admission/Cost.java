package com.fairpix.ingest.admission;

import com.fairpix.core.image.ImageHeader;
import com.fairpix.core.job.JobCost;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.OutputSize;
import java.util.Map;

/**
 * A job's cost in tokens, worked out before any write: with {@code admission.cost-model=work} (the
 * default) {@code cost-base} plus the CPU time the job is expected to take ({@link JobCost}: one token
 * is {@link JobCost#MS_PER_TOKEN} ms of one core), trued up by the worker when the job spends more;
 * with {@code megapixels}, {@code base + perMegapixel × Σ max(1, megapixels)} over its variants, each
 * counted at the larger of the source and the biggest image it makes.
 */
public final class Cost {
    private Cost() {}

    /**
     * The cost of a job. The one formula for a job's cost: admission charges it, the job's Kafka
     * message carries it to the fair scheduler, the autoscaler's backlog counts in it, and the worker
     * trues it up against the job's measured CPU.
     *
     * @param header      the original's header (its format and decoded pixels)
     * @param uploadBytes the original's size, bytes
     * @param outputs     every variant's estimate ({@link OutputSize#of})
     * @return nanotokens, at least 1
     */
    public static long ofJob(AdmissionConfig config, ImageHeader header, long uploadBytes, JobSpec spec, Map<String, OutputSize.Estimate> outputs) {
        if (config.costModel() == AdmissionConfig.CostModel.WORK) {
            return Math.max(1, Limits.nano(config.costBase() + JobCost.tokens(header, uploadBytes, spec, outputs)));
        }
        return ofMegapixels(config, header.gatePixels(), outputs);
    }

    /** The {@code megapixels} cost model: each variant counts the larger of the source and the biggest image it makes. @return nanotokens */
    static long ofMegapixels(AdmissionConfig config, long sourcePixels, Map<String, OutputSize.Estimate> outputs) {
        double mp = 0;
        for (OutputSize.Estimate e : outputs.values()) mp += Math.max(1.0, Math.max(sourcePixels, e.peakPixels()) / 1e6);
        if (outputs.isEmpty()) mp = Math.max(1.0, sourcePixels / 1e6);
        return Math.max(1, Limits.nano(config.costBase() + config.costPerMegapixel() * mp));
    }
}
