package com.fairpix.worker.process;

import com.fairpix.core.job.Modulate;
import java.util.ArrayList;
import java.util.List;
import org.opencv.core.Core;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.imgproc.Imgproc;

/**
 * Modulate step ({@link Modulate}): to CIE L*a*b* (OpenCV's float conversion, sRGB with its gamma,
 * D65), then one affine map per pixel, {@code L' = L × brightness + lightness} and (a, b) rotated by
 * the hue and scaled by the saturation (in LCh terms: C × saturation, h + hue), and back to 8-bit
 * BGR, rounded and saturated. Alpha is copied unchanged.
 *
 * <p>Run in horizontal strips of about {@link #STRIP_PIXELS} pixels with the time limit checked
 * between them: the float copies (three 12-byte images per pixel) then stay a few MB whatever the
 * image size, outside what the native memory budget counts for a source-sized step.
 */
public final class ModulateStep {
    /** Pixels per strip: 256 K pixels ≈ 10 MB of float temporaries. */
    static final int STRIP_PIXELS = 1 << 18;

    private ModulateStep() {}

    /** @return a new Mat of the same size and channel count */
    public static Mat apply(Mat src, Modulate op) {
        return apply(src, op, Deadline.none());
    }

    /**
     * @param deadline checked before each strip
     * @return a new Mat of the same size and channel count
     * @throws com.fairpix.core.error.Permanent {@code timeout} when the limit passes
     */
    public static Mat apply(Mat src, Modulate op, Deadline deadline) {
        return apply(src, op, deadline, Math.max(1, STRIP_PIXELS / Math.max(1, src.cols())));
    }

    /** @param stripRows rows per strip (tests: the strips must join into the one-call result) */
    static Mat apply(Mat src, Modulate op, Deadline deadline, int stripRows) {
        double t = Math.toRadians(op.hue());
        double cos = op.saturation() * Math.cos(t), sin = op.saturation() * Math.sin(t);
        // Rows: L, a, b out; columns: L, a, b in, then the constant.
        Mat lab = new Mat(3, 4, CvType.CV_64F);
        lab.put(0, 0,
                op.brightness(), 0, 0, op.lightness(),
                0, cos, -sin, 0,
                0, sin, cos, 0);
        Mat out = new Mat(src.rows(), src.cols(), src.type());
        try {
            for (int y = 0; y < src.rows(); y += stripRows) {
                deadline.check("modulate");
                int end = Math.min(src.rows(), y + stripRows);
                Mat in = src.submat(y, end, 0, src.cols());
                Mat to = out.submat(y, end, 0, src.cols());
                try {
                    strip(in, lab, to);
                } finally {
                    in.release();
                    to.release();
                }
            }
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        } finally {
            lab.release();
        }
    }

    private static void strip(Mat in, Mat map, Mat to) {
        boolean alpha = in.channels() == 4;
        Mat bgr = new Mat();
        if (alpha) Imgproc.cvtColor(in, bgr, Imgproc.COLOR_BGRA2BGR);
        else in.copyTo(bgr);
        Mat f = new Mat();
        bgr.convertTo(f, CvType.CV_32FC3, 1.0 / 255.0);
        // Float input: L in 0–100, a and b unscaled (OpenCV's cvtColor documentation).
        Imgproc.cvtColor(f, f, Imgproc.COLOR_BGR2Lab);
        Core.transform(f, f, map);
        Imgproc.cvtColor(f, f, Imgproc.COLOR_Lab2BGR);
        f.convertTo(bgr, CvType.CV_8UC3, 255.0); // rounds and saturates
        f.release();
        if (!alpha) {
            bgr.copyTo(to);
            bgr.release();
            return;
        }
        List<Mat> planes = new ArrayList<>();
        Core.split(bgr, planes);
        Mat a = new Mat();
        Core.extractChannel(in, a, 3);
        planes.add(a);
        Core.merge(planes, to);
        planes.forEach(Mat::release);
        bgr.release();
    }
}
