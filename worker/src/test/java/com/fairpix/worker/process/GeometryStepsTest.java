package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.error.FairpixException;
import com.fairpix.core.error.Permanent;
import com.fairpix.core.job.Operation;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.opencv.core.Mat;

/** Crop, rotate, flip and flop: lossless moves of pixels, checked by position. */
class GeometryStepsTest {
    final Mat src = StepImages.indexed(4, 3); // blue = y * 4 + x

    double blue(Mat m, int x, int y) {
        return StepImages.at(m, x, y)[0];
    }

    @Nested
    class CropStep {
        @Test
        void extractsTheRectangle() {
            Mat out = Crop.apply(src, new Operation.Crop(1, 1, 2, 2));
            assertThat(out.cols() + "x" + out.rows()).isEqualTo("2x2");
            assertThat(blue(out, 0, 0)).isEqualTo(5);
        }

        @Test
        void clipsToTheImage() {
            Mat out = Crop.apply(src, new Operation.Crop(2, 1, 100, 100));
            assertThat(out.cols() + "x" + out.rows()).isEqualTo("2x2");
        }

        @Test
        void aRectangleOutsideTheImageFailsTheJobPermanently() {
            assertThatThrownBy(() -> Crop.apply(src, new Operation.Crop(10, 0, 5, 5)))
                    .isInstanceOf(Permanent.class)
                    .extracting(e -> ((FairpixException) e).reason()).isEqualTo("crop-outside-image");
        }
    }

    @Nested
    class RotateStep {
        @Test
        void ninetyDegreesClockwiseMovesTheBottomLeftToTheTopLeft() {
            Mat out = Rotate.apply(src, new Operation.Rotate(90));
            assertThat(out.cols() + "x" + out.rows()).isEqualTo("3x4");
            assertThat(blue(out, 0, 0)).isEqualTo(8); // was (0, 2)
        }

        @Test
        void oneEightyAndTwoSeventy() {
            assertThat(blue(Rotate.apply(src, new Operation.Rotate(180)), 0, 0)).isEqualTo(11);
            assertThat(blue(Rotate.apply(src, new Operation.Rotate(270)), 0, 0)).isEqualTo(3);
        }
    }

    @Nested
    class MirrorStep {
        @Test
        void flipMirrorsTopToBottom() {
            assertThat(blue(Mirror.flip(src), 0, 0)).isEqualTo(8);
        }

        @Test
        void flopMirrorsLeftToRight() {
            assertThat(blue(Mirror.flop(src), 0, 0)).isEqualTo(3);
        }
    }
}
