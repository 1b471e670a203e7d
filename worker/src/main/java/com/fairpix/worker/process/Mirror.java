package com.fairpix.worker.process;

import org.opencv.core.Core;
import org.opencv.core.Mat;

/** Flip and flop steps (sharp's names): flip mirrors top to bottom, flop left to right. */
public final class Mirror {
    private Mirror() {}

    /** {@code flip}: about the horizontal axis. @return a new Mat */
    public static Mat flip(Mat src) {
        Mat out = new Mat();
        Core.flip(src, out, 0);
        return out;
    }

    /** {@code flop}: about the vertical axis. @return a new Mat */
    public static Mat flop(Mat src) {
        Mat out = new Mat();
        Core.flip(src, out, 1);
        return out;
    }
}
