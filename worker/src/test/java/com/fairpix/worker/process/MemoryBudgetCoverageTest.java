package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.error.FairpixException;
import com.fairpix.core.error.RetryLater;
import com.fairpix.core.job.JobSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.opencv.imgcodecs.Imgcodecs;

/** Native memory the budget must count besides the source decode: progressive coefficients, watermarks. */
class MemoryBudgetCoverageTest {
    static {
        OpenCv.ensureLoaded();
    }

    @Test
    void theHeaderTellsAProgressiveJpegFromABaselineOne() throws Exception {
        var noise = StepImages.noise(64, 48, 1);
        assertThat(com.fairpix.core.image.ImageHeader.read(StepImages.encode(noise, ".jpg")).progressive()).isFalse();
        assertThat(com.fairpix.core.image.ImageHeader.read(TestImages.encode(noise, ".jpg", Imgcodecs.IMWRITE_JPEG_PROGRESSIVE, 1)).progressive()).isTrue();
        assertThat(com.fairpix.core.image.ImageHeader.read(StepImages.encode(noise, ".png")).progressive()).isFalse();
    }

    @Test
    void aBaselineJpegWithSeveralScansHasItsCoefficientBuffersInItsEstimateLikeAProgressiveOne() {
        // libjpeg decodes it in buffered-image mode (has_multiple_scans): every coefficient of the
        // whole image is held, as for a progressive file (issue 33).
        byte[] oneScan = com.fairpix.core.image.HostileImages.baselineJpeg(1600, 1200, new int[] {0, 1, 2});
        byte[] threeScans = com.fairpix.core.image.HostileImages.baselineJpeg(1600, 1200, new int[] {0}, new int[] {1}, new int[] {2});
        JobSpec thumb = JobSpec.parse("{\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":100,\"height\":100},{\"op\":\"encode\",\"format\":\"jpeg\"}]}}");
        Decode decode = new Decode(100_000_000L);
        DecodePlan multi = decode.plan(threeScans, thumb);
        assertThat(multi.header().progressive()).isFalse();
        assertThat(ImagePipeline.estimate(multi, 10_000) - ImagePipeline.estimate(decode.plan(oneScan, thumb), 10_000)).isEqualTo(1600L * 1200 * 6);
        try (Decoded d = decode.apply(threeScans, multi)) {
            assertThat(d.image().cols()).as("OpenCV decodes the three scans").isEqualTo(multi.decodedWidth());
        }
    }

    @Test
    void aProgressiveJpegsCoefficientBuffersAreInItsEstimateWhateverTheShrinkOnLoad() {
        var noise = StepImages.noise(1600, 1200, 2);
        byte[] baseline = StepImages.encode(noise, ".jpg");
        byte[] progressive = TestImages.encode(noise, ".jpg", Imgcodecs.IMWRITE_JPEG_PROGRESSIVE, 1);
        JobSpec thumb = JobSpec.parse("{\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":100,\"height\":100},{\"op\":\"encode\",\"format\":\"jpeg\"}]}}");
        Decode decode = new Decode(100_000_000L);
        DecodePlan plan = decode.plan(progressive, thumb);
        assertThat(plan.decodedPixels()).as("shrink-on-load decodes a fraction").isLessThan(1600L * 1200);
        long withCoefficients = ImagePipeline.estimate(plan, 10_000);
        long without = ImagePipeline.estimate(decode.plan(baseline, thumb), 10_000);
        assertThat(withCoefficients - without).isEqualTo(1600L * 1200 * 6);
    }

    @Test
    void aWatermarkThatDoesNotFitTheBudgetFailsTheAttemptTransientlyAndGivesTheMemoryBack() throws Exception {
        byte[] photo = StepImages.encode(StepImages.noise(400, 300, 3), ".jpg");
        byte[] logo = StepImages.encode(StepImages.noise(3000, 3000, 4), ".png"); // 9 MP: 144 MB of estimate
        NativeMemoryBudget budget = new NativeMemoryBudget(100L << 20);
        ImagePipeline pipeline = new ImagePipeline(100_000_000L, budget, Duration.ofSeconds(30), System::nanoTime);
        JobSpec spec = JobSpec.parse("""
                {"variants":{"m":[{"op":"watermark","key":"tenants/t1/logo.png"},{"op":"encode","format":"jpeg"}]}}""", "t1");
        assertThatThrownBy(() -> pipeline.process(photo, spec, key -> logo))
                .isInstanceOf(RetryLater.class)
                .extracting(e -> ((FairpixException) e).reason()).isEqualTo("native-memory");
        assertThat(budget.reservedBytes()).as("every lease given back").isZero();

        byte[] small = StepImages.encode(StepImages.noise(100, 50, 5), ".png");
        assertThat(pipeline.process(photo, spec, key -> small)).containsKey("m");
        assertThat(budget.reservedBytes()).isZero();
    }
}
