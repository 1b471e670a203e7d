package com.fairpix.worker.process;

import com.fairpix.core.job.Operation;
import org.opencv.core.Mat;
import org.opencv.core.Size;
import org.opencv.imgproc.Imgproc;

/** Blur step: Gaussian blur of the given sigma (pixels); OpenCV sizes the kernel from sigma (±3σ). */
public final class Blur {
    private Blur() {}

    /** @return a new Mat */
    public static Mat apply(Mat src, Operation.Blur op) {
        Mat out = new Mat();
        Imgproc.GaussianBlur(src, out, new Size(0, 0), op.sigma(), op.sigma(), org.opencv.core.Core.BORDER_REFLECT_101);
        return out;
    }
}
