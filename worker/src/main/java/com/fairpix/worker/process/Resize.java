package com.fairpix.worker.process;

import com.fairpix.core.job.Operation;
import org.opencv.core.Mat;
import org.opencv.core.Rect;
import org.opencv.core.Size;
import org.opencv.imgproc.Imgproc;

/**
 * Resize step, with the fits sharp and imgproxy users know: {@code contain} (inside the box),
 * {@code cover} (fill the box, centre crop), {@code fill} (stretch). Downscaling uses
 * {@code INTER_AREA} (a box filter, free of aliasing), upscaling {@code INTER_CUBIC}.
 */
public final class Resize {
    private Resize() {}

    /** @return a new Mat; the input is left as it is */
    public static Mat apply(Mat src, Operation.Resize op) {
        int sw = src.cols(), sh = src.rows();
        double sx = op.width() == null ? Double.NaN : (double) op.width() / sw;
        double sy = op.height() == null ? Double.NaN : (double) op.height() / sh;
        Mat out = new Mat();
        switch (op.fit()) {
            case CONTAIN -> {
                double s = Double.isNaN(sx) ? sy : Double.isNaN(sy) ? sx : Math.min(sx, sy);
                if (op.withoutEnlargement()) s = Math.min(s, 1.0);
                int w = Math.max(1, (int) Math.round(sw * s));
                int h = Math.max(1, (int) Math.round(sh * s));
                Imgproc.resize(src, out, new Size(w, h), 0, 0, s < 1 ? Imgproc.INTER_AREA : Imgproc.INTER_CUBIC);
            }
            case COVER -> {
                double s = Math.max(sx, sy);
                if (op.withoutEnlargement() && s > 1) s = 1.0;
                int w = Math.max(1, (int) Math.ceil(sw * s - 1e-9));
                int h = Math.max(1, (int) Math.ceil(sh * s - 1e-9));
                Mat scaled = new Mat();
                Imgproc.resize(src, scaled, new Size(w, h), 0, 0, s < 1 ? Imgproc.INTER_AREA : Imgproc.INTER_CUBIC);
                int cw = Math.min(op.width(), w), ch = Math.min(op.height(), h);
                Rect crop = new Rect((w - cw) / 2, (h - ch) / 2, cw, ch);
                scaled.submat(crop).copyTo(out);
                scaled.release();
            }
            case FILL -> {
                int w = op.width(), h = op.height();
                if (op.withoutEnlargement()) {
                    w = Math.min(w, sw);
                    h = Math.min(h, sh);
                }
                boolean down = (double) w * h < (double) sw * sh;
                Imgproc.resize(src, out, new Size(w, h), 0, 0, down ? Imgproc.INTER_AREA : Imgproc.INTER_CUBIC);
            }
        }
        return out;
    }
}
