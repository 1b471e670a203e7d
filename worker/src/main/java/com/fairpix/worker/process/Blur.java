package com.fairpix.worker.process;

import com.fairpix.core.job.Operation;
import org.opencv.core.Mat;

/** Blur step: Gaussian blur of the given sigma (pixels); OpenCV sizes the kernel from sigma (±3σ). */
public final class Blur {
    private Blur() {}

    /** @return a new Mat */
    public static Mat apply(Mat src, Operation.Blur op) {
        return apply(src, op, Deadline.none());
    }

    /**
     * @param deadline checked between strips of a large image ({@link Strips})
     * @return a new Mat
     */
    public static Mat apply(Mat src, Operation.Blur op, Deadline deadline) {
        return Strips.gaussian(src, op.sigma(), org.opencv.core.Core.BORDER_REFLECT_101, deadline, "blur");
    }
}
