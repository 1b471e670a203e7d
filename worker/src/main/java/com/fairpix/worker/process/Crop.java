package com.fairpix.worker.process;

import com.fairpix.core.error.Permanent;
import com.fairpix.core.job.Operation;
import org.opencv.core.Mat;
import org.opencv.core.Rect;

/**
 * Crop step: extracts a rectangle, clipped to the image (as imgproxy does). A rectangle wholly
 * outside the image cannot be known at submission (the spec is checked before decoding), so it
 * fails the job permanently with reason {@code crop-outside-image}.
 */
public final class Crop {
    private Crop() {}

    /** @return a new Mat (a copy, so the source can be released) */
    public static Mat apply(Mat src, Operation.Crop op) {
        int x0 = Math.min(op.left(), src.cols()), y0 = Math.min(op.top(), src.rows());
        int x1 = (int) Math.min((long) op.left() + op.width(), src.cols());
        int y1 = (int) Math.min((long) op.top() + op.height(), src.rows());
        if (x1 <= x0 || y1 <= y0) {
            throw new Permanent("crop-outside-image", "crop " + op.width() + "x" + op.height() + "+" + op.left() + "+" + op.top()
                    + " lies outside the " + src.cols() + "x" + src.rows() + " image at that step");
        }
        Mat out = new Mat();
        src.submat(new Rect(x0, y0, x1 - x0, y1 - y0)).copyTo(out);
        return out;
    }
}
