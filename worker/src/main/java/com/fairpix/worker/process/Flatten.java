package com.fairpix.worker.process;

import java.util.ArrayList;
import java.util.List;
import org.opencv.core.Core;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.core.Scalar;

/**
 * Background step, applied before an encoder without alpha (JPEG): alpha-over compositing on a
 * solid colour, {@code out = rgb × a + background × (1 − a)}. OpenCV's JPEG encoder would drop the
 * channel and show whatever colour hides under transparent pixels (green in sharp's
 * full-transparent.png).
 */
public final class Flatten {
    /** sharp's and imgproxy's default background. */
    public static final int[] WHITE = {255, 255, 255};

    private Flatten() {}

    /** @param bgr background blue, green, red 0–255 @return a new 3-channel Mat */
    public static Mat apply(Mat bgra, int[] bgr) {
        List<Mat> planes = new ArrayList<>();
        Core.split(bgra, planes);
        Mat alpha = new Mat();
        planes.get(3).convertTo(alpha, CvType.CV_32F, 1.0 / 255.0);
        Mat colour = new Mat();
        Core.merge(planes.subList(0, 3), colour);
        Mat fg = new Mat();
        colour.convertTo(fg, CvType.CV_32FC3);
        Mat alpha3 = new Mat();
        Core.merge(List.of(alpha, alpha, alpha), alpha3);
        Mat bg = new Mat(fg.size(), CvType.CV_32FC3, new Scalar(bgr[0], bgr[1], bgr[2]));
        Mat blended = new Mat();
        // fg*a + bg*(1-a) = (fg - bg)*a + bg
        Core.subtract(fg, bg, blended);
        Core.multiply(blended, alpha3, blended);
        Core.add(blended, bg, blended);
        Mat out = new Mat();
        blended.convertTo(out, CvType.CV_8UC3); // rounds and saturates
        for (Mat m : planes) m.release();
        for (Mat m : List.of(alpha, colour, fg, alpha3, bg, blended)) m.release();
        return out;
    }

    /**
     * Copies {@code src}'s alpha (channel 3) into {@code out}, for a colour step that must not change
     * transparency; does nothing for a 3-channel image. Both Mats: same size, 8-bit.
     */
    static void keepAlpha(Mat src, Mat out) {
        if (src.channels() != 4) return;
        Mat alpha = new Mat();
        Core.extractChannel(src, alpha, 3);
        Core.insertChannel(alpha, out, 3);
        alpha.release();
    }
}
