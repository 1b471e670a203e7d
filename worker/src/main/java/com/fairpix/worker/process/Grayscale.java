package com.fairpix.worker.process;

import org.opencv.core.Mat;
import org.opencv.imgproc.Imgproc;

/**
 * Grayscale step: BT.601 luma (OpenCV's {@code COLOR_BGR2GRAY}), written back into 3 (or, with
 * alpha, 4) channels so every later step and encoder sees the usual layout.
 */
public final class Grayscale {
    private Grayscale() {}

    /** @return a new Mat of the same channel count */
    public static Mat apply(Mat src) {
        Mat grey = new Mat();
        Imgproc.cvtColor(src, grey, src.channels() == 4 ? Imgproc.COLOR_BGRA2GRAY : Imgproc.COLOR_BGR2GRAY);
        Mat out = new Mat();
        Imgproc.cvtColor(grey, out, src.channels() == 4 ? Imgproc.COLOR_GRAY2BGRA : Imgproc.COLOR_GRAY2BGR);
        grey.release();
        Flatten.keepAlpha(src, out);
        return out;
    }
}
