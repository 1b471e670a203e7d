package com.fairpix.worker.process;

import com.fairpix.core.job.Operation;
import org.opencv.core.Mat;
import org.opencv.core.Rect;
import org.opencv.imgproc.Imgproc;

/**
 * Where a {@code cover} crop window goes: at a compass gravity, or {@code smart}: the window that
 * keeps the most information, found as libvips' {@code vips_smartcrop(INTERESTING_ENTROPY)} (what
 * sharp calls {@code strategy.entropy}) does it: repeatedly cut a slice off the side whose strip
 * has the lower Shannon entropy of its luminance histogram, until the window fits. Cheap: it runs
 * on the already-scaled image, in slices of at most a tenth of the remaining span.
 */
public final class SmartCrop {
    private SmartCrop() {}

    /** @return a window of {@code cw × ch} inside {@code scaled} */
    public static Rect window(Mat scaled, int cw, int ch, Operation.Gravity gravity) {
        int w = scaled.cols(), h = scaled.rows();
        if (gravity != Operation.Gravity.SMART) {
            int x = (w - cw) * (gravity.dx + 1) / 2;
            int y = (h - ch) * (gravity.dy + 1) / 2;
            return new Rect(x, y, cw, ch);
        }
        Mat grey = new Mat();
        if (scaled.channels() == 1) scaled.copyTo(grey);
        else Imgproc.cvtColor(scaled, grey, scaled.channels() == 4 ? Imgproc.COLOR_BGRA2GRAY : Imgproc.COLOR_BGR2GRAY);
        byte[] px = new byte[w * h];
        grey.get(0, 0, px);
        grey.release();
        int left = 0, right = w, top = 0, bottom = h;
        while (right - left > cw) {
            int step = Math.min(right - left - cw, Math.max(1, (right - left) / 10));
            double l = entropy(px, w, left, left + step, top, bottom);
            double r = entropy(px, w, right - step, right, top, bottom);
            if (l < r) left += step; else right -= step;
        }
        while (bottom - top > ch) {
            int step = Math.min(bottom - top - ch, Math.max(1, (bottom - top) / 10));
            double t = entropy(px, w, left, right, top, top + step);
            double b = entropy(px, w, left, right, bottom - step, bottom);
            if (t < b) top += step; else bottom -= step;
        }
        return new Rect(left, top, cw, ch);
    }

    /** Shannon entropy, bits, of the 8-bit values in [x0, x1) × [y0, y1). */
    static double entropy(byte[] px, int stride, int x0, int x1, int y0, int y1) {
        int[] hist = new int[256];
        for (int y = y0; y < y1; y++) {
            int row = y * stride;
            for (int x = x0; x < x1; x++) hist[px[row + x] & 0xFF]++;
        }
        double n = (double) (x1 - x0) * (y1 - y0), e = 0;
        for (int c : hist) {
            if (c == 0) continue;
            double p = c / n;
            e -= p * Math.log(p);
        }
        return e / Math.log(2);
    }
}
