package com.fairpix.worker.process;

import com.fairpix.core.job.Operation;
import org.opencv.core.Mat;
import org.opencv.core.Rect;
import org.opencv.core.Size;
import org.opencv.imgproc.Imgproc;

/**
 * Resize step, with sharp's fits: {@code contain} (inside the box), {@code cover} (fill the box,
 * crop at the gravity), {@code fill} (stretch), {@code inside} (contain, never enlarging),
 * {@code outside} (at least the box, no crop, never enlarging). Downscaling uses {@code INTER_AREA}
 * (a box filter, free of aliasing: docs/pipeline.md, OpenCV facts), upscaling {@code INTER_CUBIC}.
 */
public final class Resize {
    private Resize() {}

    /** The scale a fit applies to a {@code sw × sh} source (per axis for {@code fill}): {sx, sy} ({@link Operation.Resize#scales}). */
    static double[] scales(int sw, int sh, Operation.Resize op) {
        return op.scales(sw, sh);
    }

    /** @return a new Mat; the input is left as it is */
    public static Mat apply(Mat src, Operation.Resize op) {
        int sw = src.cols(), sh = src.rows();
        double[] s = scales(sw, sh, op);
        Mat out = new Mat();
        if (op.fit() == Operation.Fit.COVER) {
            int w = Math.max(1, (int) Math.ceil(sw * s[0] - 1e-9));
            int h = Math.max(1, (int) Math.ceil(sh * s[1] - 1e-9));
            Mat scaled = scale(src, w, h);
            int cw = Math.min(op.width(), w), ch = Math.min(op.height(), h);
            Rect crop = SmartCrop.window(scaled, cw, ch, op.gravity());
            scaled.submat(crop).copyTo(out);
            scaled.release();
            return out;
        }
        int w = op.fit() == Operation.Fit.FILL && op.width() != null && !op.withoutEnlargement() ? op.width() : Math.max(1, (int) Math.round(sw * s[0]));
        int h = op.fit() == Operation.Fit.FILL && op.height() != null && !op.withoutEnlargement() ? op.height() : Math.max(1, (int) Math.round(sh * s[1]));
        return scale(src, w, h);
    }

    private static Mat scale(Mat src, int w, int h) {
        Mat out = new Mat();
        if (w == src.cols() && h == src.rows()) {
            src.copyTo(out);
            return out;
        }
        boolean down = (double) w * h < (double) src.cols() * src.rows();
        Imgproc.resize(src, out, new Size(w, h), 0, 0, down ? Imgproc.INTER_AREA : Imgproc.INTER_CUBIC);
        return out;
    }
}
