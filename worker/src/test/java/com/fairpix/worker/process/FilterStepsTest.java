package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.job.Operation;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.opencv.core.Core;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.core.MatOfDouble;
import org.opencv.core.Rect;
import org.opencv.core.Scalar;

/** Blur, sharpen and grayscale: filters that keep the size and the alpha. */
class FilterStepsTest {
    static double stddev(Mat m) {
        MatOfDouble mean = new MatOfDouble(), sd = new MatOfDouble();
        Core.meanStdDev(m, mean, sd);
        return sd.toArray()[0];
    }

    static Mat withAlpha(Mat bgr, int alpha) {
        List<Mat> planes = new ArrayList<>();
        Core.split(bgr, planes);
        planes.add(new Mat(bgr.size(), CvType.CV_8U, new Scalar(alpha)));
        Mat out = new Mat();
        Core.merge(planes, out);
        return out;
    }

    @Test
    void blurSmoothsNoise() {
        Mat noise = StepImages.noise(64, 64, 1);
        Mat out = Blur.apply(noise, new Operation.Blur(2));
        assertThat(out.size()).isEqualTo(noise.size());
        assertThat(stddev(out)).isLessThan(stddev(noise) / 3);
    }

    @Test
    void sharpenAddsContrastAtEdgesAndKeepsAlpha() {
        Mat edge = StepImages.solid(40, 40, 100, 100, 100);
        edge.submat(new Rect(20, 0, 20, 40)).setTo(new Scalar(150, 150, 150));
        Mat soft = Blur.apply(edge, new Operation.Blur(1.5));
        Mat out = Sharpen.apply(withAlpha(soft, 77), new Operation.Sharpen(1.5, 1));
        Mat colour = new Mat();
        Core.extractChannel(out, colour, 0);
        assertThat(stddev(colour)).isGreaterThan(stddev(soft));
        Mat alpha = new Mat();
        Core.extractChannel(out, alpha, 3);
        assertThat(Core.mean(alpha).val[0]).isEqualTo(77);
    }

    @Test
    void grayscaleMakesTheChannelsEqualAndKeepsAlpha() {
        Mat out = Grayscale.apply(withAlpha(StepImages.solid(4, 4, 255, 0, 0), 10));
        double[] px = StepImages.at(out, 0, 0);
        assertThat(px).hasSize(4);
        assertThat(px[0]).isEqualTo(px[1]).isEqualTo(px[2]).isEqualTo(29); // BT.601: 0.114 × 255
        assertThat(px[3]).isEqualTo(10);
    }
}
