package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.error.FairpixException;
import com.fairpix.core.error.Permanent;
import com.fairpix.core.job.JobSpec;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.opencv.core.Mat;
import org.opencv.core.MatOfByte;
import org.opencv.imgcodecs.Imgcodecs;

/** The steps in order from a spec: several variants on one decode, watermark assets, the time limit. */
class PipelineOperationsTest {
    final byte[] photo = StepImages.encode(StepImages.noise(400, 300, 3), ".jpg");
    final byte[] logo = StepImages.encode(StepImages.solid(40, 20, 0, 0, 255), ".png");

    @Test
    void everyVariantGetsItsOperationsInOrder() throws Exception {
        JobSpec spec = JobSpec.parse("""
                {"variants":{
                  "thumb":[{"op":"resize","width":100,"height":100,"fit":"cover","gravity":"smart"},{"op":"encode","format":"webp"}],
                  "turned":[{"op":"rotate","angle":90},{"op":"flop"},{"op":"crop","left":0,"top":0,"width":150,"height":200},
                            {"op":"grayscale"},{"op":"blur","sigma":1},{"op":"sharpen"},{"op":"encode","format":"png","compression":9}],
                  "marked":[{"op":"resize","width":200},{"op":"watermark","key":"tenants/t1/logo.png","opacity":1,"scale":0.5,"gravity":"southeast","margin":0},
                            {"op":"encode","format":"jpeg","quality":90,"progressive":true}]}}
                """, "t1");
        Map<String, ImagePipeline.Output> out = new ImagePipeline(100_000_000L).process(photo, spec, key -> {
            assertThat(key).isEqualTo("tenants/t1/logo.png");
            return logo;
        });
        assertThat(out.keySet()).containsExactly("thumb", "turned", "marked");
        assertThat(out.get("thumb").width() + "x" + out.get("thumb").height()).isEqualTo("100x100");
        assertThat(out.get("turned").width() + "x" + out.get("turned").height()).isEqualTo("150x200");
        assertThat(out.get("marked").width() + "x" + out.get("marked").height()).isEqualTo("200x150");
        Mat marked = Imgcodecs.imdecode(new MatOfByte(out.get("marked").data()), Imgcodecs.IMREAD_COLOR);
        double[] corner = StepImages.at(marked, 195, 145);
        assertThat(corner[2]).isGreaterThan(200); // the red logo, bottom right
        assertThat(corner[0]).isLessThan(60);
    }

    @Test
    void aWatermarkThatCannotBeReadFailsTheJobPermanently() {
        JobSpec spec = JobSpec.parse("""
                {"variants":{"m":[{"op":"watermark","key":"tenants/t1/missing.png"}]}}""", "t1");
        assertThatThrownBy(() -> new ImagePipeline(100_000_000L).process(photo, spec))
                .isInstanceOf(Permanent.class)
                .extracting(e -> ((FairpixException) e).reason()).isEqualTo("asset-not-found");
    }

    @Test
    void theTimeLimitStopsAJobBetweenSteps() {
        AtomicLong now = new AtomicLong();
        // Every look at the clock moves it a second: the limit of 3 s passes after a few steps.
        ImagePipeline pipeline = new ImagePipeline(100_000_000L, new NativeMemoryBudget(1L << 30), Duration.ofSeconds(3),
                () -> now.getAndAdd(1_000_000_000L));
        JobSpec spec = JobSpec.parse("""
                {"variants":{"v":[{"op":"flip"},{"op":"flop"},{"op":"flip"},{"op":"flop"},{"op":"flip"}]}}""");
        assertThatThrownBy(() -> pipeline.process(photo, spec, Assets.NONE))
                .isInstanceOf(Permanent.class)
                .extracting(e -> ((FairpixException) e).reason()).isEqualTo("timeout");
    }

    @Test
    void memoryIsReturnedToTheBudgetAfterTheJob() throws Exception {
        NativeMemoryBudget budget = new NativeMemoryBudget(1L << 30);
        ImagePipeline pipeline = new ImagePipeline(100_000_000L, budget, Duration.ofSeconds(30), System::nanoTime);
        pipeline.process(photo, JobSpec.parse("{\"variants\":{\"v\":[{\"op\":\"resize\",\"width\":50}]}}"), Assets.NONE);
        assertThat(budget.reservedBytes()).isZero();
        assertThatThrownBy(() -> pipeline.process(new byte[] {1, 2, 3}, JobSpec.parse("{\"variants\":{\"v\":[{\"op\":\"flip\"}]}}"), Assets.NONE))
                .isInstanceOf(Permanent.class);
        assertThat(budget.reservedBytes()).isZero();
    }
}
