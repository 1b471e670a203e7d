package com.fairpix.core.job;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;

/**
 * What one job spec may ask for, so that a few bytes of spec cannot make gigabytes of output or
 * minutes of CPU. Keys, defaults and docs in {@link Setting} ({@code spec.*}); a tenant's
 * {@code maxPixels} lowers {@code maxOutputPixels} for that tenant ({@link #forTenant}).
 *
 * @param maxSpecBytes     largest spec JSON, bytes (UTF-8)
 * @param maxVariants      most variants
 * @param maxOperations    most operations per variant, its encode step included
 * @param maxKeyLength     longest S3 key a spec names (watermark), UTF-8 bytes
 * @param maxOutputSide    largest width or height of any image the job makes, pixels
 * @param maxOutputPixels  most pixels of any image the job makes (intermediates included)
 * @param maxBlurSigma     largest blur sigma, pixels
 */
public record SpecLimits(int maxSpecBytes, int maxVariants, int maxOperations, int maxKeyLength, int maxOutputSide,
                         long maxOutputPixels, double maxBlurSigma) {

    /** The defaults of {@link Setting}. */
    public static final SpecLimits DEFAULTS = new SpecLimits(65_536, 16, 16, 512, 16_384, 50_000_000L, 50);

    /** The {@code spec.*} settings; each setting's constraint bounds its value. */
    public static SpecLimits from(FairpixConfig c) {
        return new SpecLimits(c.integer(Setting.SPEC_MAX_BYTES), c.integer(Setting.SPEC_MAX_VARIANTS), c.integer(Setting.SPEC_MAX_OPERATIONS),
                c.integer(Setting.SPEC_MAX_KEY_LENGTH), c.integer(Setting.SPEC_MAX_OUTPUT_SIDE), c.longValue(Setting.SPEC_MAX_OUTPUT_PIXELS),
                c.decimal(Setting.SPEC_MAX_BLUR_SIGMA));
    }

    /** These limits with {@code maxOutputPixels} lowered to the tenant's {@code maxPixels}. */
    public SpecLimits forTenant(long tenantMaxPixels) {
        long px = Math.min(maxOutputPixels, Math.max(1, tenantMaxPixels));
        return px == maxOutputPixels ? this : new SpecLimits(maxSpecBytes, maxVariants, maxOperations, maxKeyLength, maxOutputSide, px, maxBlurSigma);
    }
}
