package com.fairpix.core.image;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.job.JobSpec;
import com.fairpix.core.tenant.Tenant;
import org.junit.jupiter.api.Test;

/** The format lists tenants and specs are checked against come from the enum. */
class ImageFormatTest {
    @Test
    void tenantsMayAllowEveryFormatFairpixReads() {
        assertThat(Tenant.FORMATS).containsExactlyInAnyOrder("jpeg", "png", "webp", "tiff", "bmp", "gif", "heic", "avif");
    }

    @Test
    void anEncodeStepMayNameTheFormatsFairpixWrites() {
        assertThat(ImageFormat.WRITABLE_IDS).containsExactly("jpeg", "png", "webp", "avif");
        assertThat(JobSpec.OUTPUT_FORMATS).containsExactlyInAnyOrder("jpeg", "png", "webp", "avif");
    }
}
