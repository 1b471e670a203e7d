package com.fairpix.worker.process;

import org.opencv.core.Core;
import org.opencv.core.Mat;

/**
 * EXIF auto-orientation step: turns the stored pixels upright. fairpix decodes with
 * {@code IMREAD_IGNORE_ORIENTATION} (JPEG) or {@code IMREAD_UNCHANGED} (PNG, WebP: needed for alpha
 * and 16 bits, and OpenCV never rotates there), so orientation is always applied here, the same
 * way for every format. Values per CIPA DC-008 (EXIF 2.32) tag 0x0112.
 */
public final class Orient {
    private Orient() {}

    /** @return the upright image: {@code src} itself for orientation 1, else a new Mat */
    public static Mat apply(Mat src, int orientation) {
        if (orientation <= 1 || orientation > 8) return src;
        Mat out = new Mat();
        switch (orientation) {
            case 2 -> Core.flip(src, out, 1);                        // mirrored left-right
            case 3 -> Core.rotate(src, out, Core.ROTATE_180);
            case 4 -> Core.flip(src, out, 0);                        // mirrored top-bottom
            case 5 -> Core.transpose(src, out);                      // mirrored about the main diagonal
            case 6 -> Core.rotate(src, out, Core.ROTATE_90_CLOCKWISE);
            case 7 -> {                                              // transverse: about the anti-diagonal
                Mat t = new Mat();
                Core.transpose(src, t);
                Core.flip(t, out, -1);
                t.release();
            }
            case 8 -> Core.rotate(src, out, Core.ROTATE_90_COUNTERCLOCKWISE);
            default -> throw new IllegalStateException();
        }
        return out;
    }
}
