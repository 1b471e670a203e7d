package com.fairpix.worker.process;

import com.fairpix.core.job.Operation;
import org.opencv.core.Core;
import org.opencv.core.Mat;

/**
 * Sharpen step: unsharp mask, {@code out = src + amount × (src − gaussian(src, sigma))}, saturated
 * to 0–255. Alpha is left as it was (sharpening a mask would draw halos into transparency).
 */
public final class Sharpen {
    private Sharpen() {}

    /** @return a new Mat */
    public static Mat apply(Mat src, Operation.Sharpen op) {
        return apply(src, op, Deadline.none());
    }

    /**
     * @param deadline checked between strips of a large image ({@link Strips})
     * @return a new Mat
     */
    public static Mat apply(Mat src, Operation.Sharpen op, Deadline deadline) {
        Mat blurred = Strips.gaussian(src, op.sigma(), Core.BORDER_DEFAULT, deadline, "sharpen");
        Mat out = new Mat();
        Core.addWeighted(src, 1 + op.amount(), blurred, -op.amount(), 0, out);
        blurred.release();
        Flatten.keepAlpha(src, out);
        return out;
    }
}
