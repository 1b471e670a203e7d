package com.fairpix.worker.process;

import com.fairpix.core.job.Operation;
import org.opencv.core.Core;
import org.opencv.core.Mat;

/** Rotate step: 90, 180 or 270 degrees clockwise, lossless (a pixel transpose, no resampling). */
public final class Rotate {
    private Rotate() {}

    /** @return a new Mat */
    public static Mat apply(Mat src, Operation.Rotate op) {
        Mat out = new Mat();
        int code = switch (op.angle()) {
            case 90 -> Core.ROTATE_90_CLOCKWISE;
            case 180 -> Core.ROTATE_180;
            case 270 -> Core.ROTATE_90_COUNTERCLOCKWISE;
            default -> throw new IllegalArgumentException("angle " + op.angle());
        };
        Core.rotate(src, out, code);
        return out;
    }
}
