package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.job.Operation;
import com.fairpix.core.job.Operation.Gravity;
import org.junit.jupiter.api.Test;
import org.opencv.core.Mat;

class WatermarkTest {
    final Mat white = StepImages.solid(100, 100, 255, 255, 255);
    final Mat red = StepImages.solid(10, 5, 0, 0, 255);

    @Test
    void opaqueWatermarkSitsAtTheGravityScaledToTheImageWidth() {
        Mat out = Watermark.apply(white, red, new Operation.Watermark("tenants/t/w.png", Gravity.SOUTHEAST, 1.0, 0.2, 0));
        // 0.2 × 100 = 20 px wide, 10 px high, bottom-right corner.
        assertThat(StepImages.at(out, 99, 99)).containsExactly(0, 0, 255);
        assertThat(StepImages.at(out, 80, 90)).containsExactly(0, 0, 255);
        assertThat(StepImages.at(out, 79, 99)).containsExactly(255, 255, 255);
        assertThat(StepImages.at(out, 99, 89)).containsExactly(255, 255, 255);
        assertThat(StepImages.at(white, 99, 99)).as("source untouched").containsExactly(255, 255, 255);
    }

    @Test
    void opacityBlendsAndMarginMovesItIn() {
        Mat out = Watermark.apply(white, red, new Operation.Watermark("tenants/t/w.png", Gravity.NORTHWEST, 0.5, 0.2, 5));
        assertThat(StepImages.at(out, 4, 4)).containsExactly(255, 255, 255);
        assertThat(StepImages.at(out, 5, 5)).containsExactly(128, 128, 255);
    }
}
