package com.fairpix.worker.process;

import org.opencv.core.Mat;
import org.opencv.core.Size;
import org.opencv.imgproc.Imgproc;

/**
 * A Gaussian filter run in horizontal strips, with the job's time limit checked between strips: a
 * native OpenCV call cannot be interrupted, so one blur of a large image with a large sigma would
 * otherwise overshoot the limit by minutes. OpenCV filters a region of interest with the real
 * pixels around it where the parent image has them (only {@code BORDER_ISOLATED} would extrapolate
 * at the strip's edge), so the strips together give exactly the one-call result; each strip reads
 * its kernel radius above and below, which costs {@code 2 × radius / strip height} more work.
 */
final class Strips {
    /** Below this size one call is quick enough. */
    static final long MIN_PIXELS = 4_000_000;

    private Strips() {}

    /**
     * {@code Imgproc.GaussianBlur(src, dst, (0, 0), sigma, sigma, border)}, strip by strip.
     *
     * @param sigma    in pixels
     * @param deadline checked before each strip
     * @param step     the step's name, for the timeout message
     * @return a new Mat
     * @throws com.fairpix.core.error.Permanent {@code timeout} when the limit passes
     */
    static Mat gaussian(Mat src, double sigma, int border, Deadline deadline, String step) {
        Mat dst = new Mat();
        if ((long) src.rows() * src.cols() < MIN_PIXELS) {
            deadline.check(step);
            Imgproc.GaussianBlur(src, dst, new Size(0, 0), sigma, sigma, border);
            return dst;
        }
        dst.create(src.rows(), src.cols(), src.type());
        // OpenCV's kernel for 8-bit images: size round(sigma * 6 + 1), odd (getGaussianKernel); radius half of it.
        int radius = (int) Math.round(sigma * 3) + 1;
        int height = Math.max(256, 8 * radius);
        try {
            for (int y = 0; y < src.rows(); y += height) {
                deadline.check(step);
                int end = Math.min(src.rows(), y + height);
                Mat in = src.submat(y, end, 0, src.cols());
                Mat out = dst.submat(y, end, 0, src.cols());
                try {
                    Imgproc.GaussianBlur(in, out, new Size(0, 0), sigma, sigma, border);
                } finally {
                    in.release();
                    out.release();
                }
            }
            return dst;
        } catch (RuntimeException e) {
            dst.release();
            throw e;
        }
    }
}
