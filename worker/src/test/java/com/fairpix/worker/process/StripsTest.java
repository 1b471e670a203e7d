package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.error.FairpixException;
import com.fairpix.core.error.Permanent;
import com.fairpix.core.job.Operation;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.opencv.core.Core;
import org.opencv.core.Mat;
import org.opencv.core.Size;
import org.opencv.imgproc.Imgproc;

class StripsTest {
    static {
        OpenCv.ensureLoaded();
    }

    @Test
    void aBlurInStripsIsTheOneCallBlurToTheRounding() {
        Mat src = StepImages.noise(2600, 2000, 7); // 5.2 MP: over the strip threshold
        for (double sigma : new double[] {0.8, 5, 40}) {
            Mat whole = new Mat();
            Imgproc.GaussianBlur(src, whole, new Size(0, 0), sigma, sigma, Core.BORDER_REFLECT_101);
            Mat strips = Blur.apply(src, new Operation.Blur(sigma), Deadline.none());
            Mat diff = new Mat();
            Core.absdiff(whole, strips, diff);
            // OpenCV takes another code path for a whole continuous image than for a strip of one (at sigma 0.8
            // 18 % of the values differ by a rounding step): a step or two, and no seam, i.e. the rows at a
            // strip's edge differ no more than the rest.
            assertThat(Core.norm(diff, Core.NORM_INF)).as("largest difference at sigma %s", sigma).isLessThanOrEqualTo(2);
            int radius = (int) Math.round(sigma * 3) + 1, height = Math.max(256, 8 * radius);
            double atEdges = 0, elsewhere = 0;
            for (int y = 0; y < diff.rows(); y++) {
                Mat row = diff.row(y);
                double max = Core.norm(row, Core.NORM_INF);
                row.release();
                int fromEdge = Math.min(y % height, height - y % height);
                if (y >= height && fromEdge <= 2) atEdges = Math.max(atEdges, max);
                else elsewhere = Math.max(elsewhere, max);
            }
            assertThat(atEdges).as("difference next to strip edges at sigma %s", sigma).isLessThanOrEqualTo(elsewhere);
            whole.release();
            strips.release();
            diff.release();
        }
        src.release();
    }

    @Test
    void theTimeLimitStopsABlurBetweenStripsNotAfterIt() {
        Mat src = StepImages.noise(2600, 2000, 8);
        AtomicInteger looks = new AtomicInteger();
        // Each look at the clock moves it a second; the limit of 2 s passes inside the step.
        Deadline deadline = Deadline.after(Duration.ofSeconds(2), () -> looks.getAndIncrement() * 1_000_000_000L);
        assertThatThrownBy(() -> Blur.apply(src, new Operation.Blur(2), deadline))
                .isInstanceOf(Permanent.class)
                .extracting(e -> ((FairpixException) e).reason()).isEqualTo("timeout");
        // 2000 rows in strips of 256: 8 strips; it stopped before the fourth.
        assertThat(looks.get()).isEqualTo(4);
        src.release();
    }
}
