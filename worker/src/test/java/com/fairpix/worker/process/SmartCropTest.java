package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.job.Operation.Gravity;
import org.junit.jupiter.api.Test;
import org.opencv.core.Mat;
import org.opencv.core.Rect;

class SmartCropTest {
    @Test
    void smartKeepsTheBusyPartOfAFlatPicture() {
        Mat src = StepImages.solid(300, 100, 90, 90, 90);
        StepImages.noise(80, 100, 7).copyTo(src.submat(new Rect(200, 0, 80, 100)));
        Rect w = SmartCrop.window(src, 100, 100, Gravity.SMART);
        assertThat(w.x).isBetween(180, 200);
        assertThat(w.width).isEqualTo(100);
        assertThat(w.height).isEqualTo(100);
    }

    @Test
    void smartWorksVerticallyToo() {
        Mat src = StepImages.solid(100, 300, 10, 200, 10);
        StepImages.noise(100, 60, 3).copyTo(src.submat(new Rect(0, 20, 100, 60)));
        Rect w = SmartCrop.window(src, 100, 100, Gravity.SMART);
        assertThat(w.y).isLessThanOrEqualTo(20);
    }

    @Test
    void compassPointsPlaceTheWindowAtEdgesAndCentre() {
        Mat src = StepImages.solid(300, 200, 0, 0, 0);
        assertThat(SmartCrop.window(src, 100, 100, Gravity.NORTHWEST)).isEqualTo(new Rect(0, 0, 100, 100));
        assertThat(SmartCrop.window(src, 100, 100, Gravity.SOUTHEAST)).isEqualTo(new Rect(200, 100, 100, 100));
        assertThat(SmartCrop.window(src, 100, 100, Gravity.CENTRE)).isEqualTo(new Rect(100, 50, 100, 100));
        assertThat(SmartCrop.window(src, 100, 100, Gravity.NORTH)).isEqualTo(new Rect(100, 0, 100, 100));
    }
}
