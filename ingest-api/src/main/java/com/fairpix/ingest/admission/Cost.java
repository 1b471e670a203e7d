package com.fairpix.ingest.admission;

/**
 * A job's cost in tokens: {@code base + perMegapixel × Σ max(1, megapixels)} over its variants,
 * each counted at the larger of the source and the biggest image it makes, so a 24-megapixel
 * original with 3 variants costs about 72 tokens and a thumbnail of a small image about 1. The
 * megapixels come from the image header and the spec, read before admission.
 */
public final class Cost {
    private Cost() {}

    /**
     * The cost of a job of a {@code sourcePixels}-pixel original whose variants make the images
     * {@code outputs} describes (from {@link com.fairpix.core.job.OutputSize#of}): each variant counts
     * the larger of the source and the biggest image it makes. The one formula for a job's cost:
     * admission charges it, the job's Kafka message carries it to the fair scheduler, the
     * autoscaler's backlog counts in it.
     *
     * @return nanotokens
     */
    public static long ofJob(AdmissionConfig config, long sourcePixels, java.util.Map<String, com.fairpix.core.job.OutputSize.Estimate> outputs) {
        long[] px = new long[Math.max(1, outputs.size())];
        int i = 0;
        for (com.fairpix.core.job.OutputSize.Estimate e : outputs.values()) px[i++] = Math.max(sourcePixels, e.peakPixels());
        if (outputs.isEmpty()) px[0] = sourcePixels;
        return nanoOf(config, px);
    }

    private static long nanoOf(AdmissionConfig config, long[] variantPixels) {
        double mp = 0;
        for (long px : variantPixels) mp += Math.max(1.0, px / 1e6);
        if (variantPixels.length == 0) mp = 1;
        return Math.max(1, Limits.nano(config.costBase() + config.costPerMegapixel() * mp));
    }
}
