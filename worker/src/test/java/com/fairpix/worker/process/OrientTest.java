package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.opencv.core.Core;
import org.opencv.core.Mat;

class OrientTest {
    /** How a camera stores an upright picture under each EXIF orientation (the inverse of the display transform). */
    static Mat stored(Mat upright, int orientation) {
        Mat out = new Mat();
        switch (orientation) {
            case 1 -> upright.copyTo(out);
            case 2 -> Core.flip(upright, out, 1);
            case 3 -> Core.rotate(upright, out, Core.ROTATE_180);
            case 4 -> Core.flip(upright, out, 0);
            case 5 -> Core.transpose(upright, out);
            case 6 -> Core.rotate(upright, out, Core.ROTATE_90_COUNTERCLOCKWISE);
            case 7 -> {
                Mat t = new Mat();
                Core.rotate(upright, t, Core.ROTATE_180);
                Core.transpose(t, out);
            }
            case 8 -> Core.rotate(upright, out, Core.ROTATE_90_CLOCKWISE);
            default -> throw new IllegalArgumentException();
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void everyExifOrientationComesOutUpright(int orientation) {
        Mat upright = StepImages.indexed(5, 3);
        Mat result = Orient.apply(stored(upright, orientation), orientation);
        assertThat(StepImages.same(result, upright)).as("orientation " + orientation).isTrue();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 9})
    void orientationOneOrUnknownLeavesTheImageAlone(int orientation) {
        Mat m = StepImages.indexed(4, 2);
        assertThat(Orient.apply(m, orientation)).isSameAs(m);
    }
}
