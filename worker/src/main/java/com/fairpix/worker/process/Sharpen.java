package com.fairpix.worker.process;

import com.fairpix.core.job.Operation;
import org.opencv.core.Core;
import org.opencv.core.Mat;
import org.opencv.core.Size;
import org.opencv.imgproc.Imgproc;

/**
 * Sharpen step: unsharp mask, {@code out = src + amount × (src − gaussian(src, sigma))}, saturated
 * to 0–255. Alpha is left as it was (sharpening a mask would draw halos into transparency).
 */
public final class Sharpen {
    private Sharpen() {}

    /** @return a new Mat */
    public static Mat apply(Mat src, Operation.Sharpen op) {
        Mat blurred = new Mat();
        Imgproc.GaussianBlur(src, blurred, new Size(0, 0), op.sigma());
        Mat out = new Mat();
        Core.addWeighted(src, 1 + op.amount(), blurred, -op.amount(), 0, out);
        blurred.release();
        Flatten.keepAlpha(src, out);
        return out;
    }
}
