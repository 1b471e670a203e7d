package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.job.Operation;
import com.fairpix.core.job.Operation.Fit;
import com.fairpix.core.job.Operation.Gravity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.opencv.core.Mat;
import org.opencv.core.Rect;
import org.opencv.core.Scalar;

class ResizeFitsTest {
    @ParameterizedTest(name = "{0} {1}x{2} on 400x200 -> {4}")
    @CsvSource(textBlock = """
            contain, 100, 100, false, 100x50
            cover,   100, 100, false, 100x100
            fill,    100, 100, false, 100x100
            inside,  100, 100, false, 100x50
            outside, 100, 100, false, 200x100
            contain, 800, 800, false, 800x400
            contain, 800, 800, true,  400x200
            inside,  800, 800, false, 400x200
            outside, 800, 800, false, 400x200
            cover,   800, 800, true,  400x200
            fill,    800, 100, true,  400x100
            """)
    void fitsGiveSharpsSizes(String fit, int w, int h, boolean withoutEnlargement, String size) {
        Mat src = StepImages.noise(400, 200, 1);
        Mat out = Resize.apply(src, new Operation.Resize(w, h, Fit.valueOf(fit.toUpperCase()), withoutEnlargement));
        assertThat(out.cols() + "x" + out.rows()).isEqualTo(size);
    }

    @Test
    void widthAloneKeepsTheAspectRatio() {
        Mat out = Resize.apply(StepImages.noise(400, 200, 1), new Operation.Resize(100, null, Fit.CONTAIN, false));
        assertThat(out.cols() + "x" + out.rows()).isEqualTo("100x50");
    }

    @Test
    void coverCropsAtTheCompassGravity() {
        // Left half black, right half white: east keeps white, west keeps black.
        Mat src = StepImages.solid(200, 100, 0, 0, 0);
        src.submat(new Rect(100, 0, 100, 100)).setTo(new Scalar(255, 255, 255));
        Mat east = Resize.apply(src, new Operation.Resize(50, 50, Fit.COVER, false, Gravity.EAST));
        Mat west = Resize.apply(src, new Operation.Resize(50, 50, Fit.COVER, false, Gravity.WEST));
        assertThat(org.opencv.core.Core.mean(east).val[0]).isGreaterThan(250);
        assertThat(org.opencv.core.Core.mean(west).val[0]).isLessThan(5);
    }
}
