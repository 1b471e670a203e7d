package com.fairpix.worker.process;

import com.fairpix.core.job.Operation;
import java.util.ArrayList;
import java.util.List;
import org.opencv.core.Core;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.core.Rect;
import org.opencv.core.Scalar;
import org.opencv.core.Size;
import org.opencv.imgproc.Imgproc;

/**
 * Watermark step: scales the overlay to {@code scale ×} the image width (keeping its aspect ratio,
 * never taller than the image), places it at the gravity with a margin, and blends it with
 * {@code opacity ×} its own alpha (imgproxy's watermark options: position, opacity, scale).
 * Where the image has alpha, the result's alpha is the "over" operator's: a_w + a_i (1 − a_w).
 */
public final class Watermark {
    private Watermark() {}

    /**
     * @param overlay the decoded watermark, 8-bit BGR or BGRA
     * @return a new Mat with the channel count of {@code src}
     */
    public static Mat apply(Mat src, Mat overlay, Operation.Watermark op) {
        Mat out = src.clone();
        int w = Math.max(1, (int) Math.round(src.cols() * op.scale()));
        int h = Math.max(1, (int) Math.round((double) overlay.rows() * w / overlay.cols()));
        if (h > src.rows()) {
            h = src.rows();
            w = Math.max(1, (int) Math.round((double) overlay.cols() * h / overlay.rows()));
        }
        int margin = Math.min(op.margin(), Math.min((src.cols() - w) / 2, (src.rows() - h) / 2));
        margin = Math.max(0, margin);
        Operation.Gravity g = op.gravity() == Operation.Gravity.SMART ? Operation.Gravity.CENTRE : op.gravity();
        int x = g.dx < 0 ? margin : g.dx > 0 ? src.cols() - w - margin : (src.cols() - w) / 2;
        int y = g.dy < 0 ? margin : g.dy > 0 ? src.rows() - h - margin : (src.rows() - h) / 2;

        Mat sized = new Mat();
        Imgproc.resize(overlay, sized, new Size(w, h), 0, 0, (long) w * h < (long) overlay.cols() * overlay.rows() ? Imgproc.INTER_AREA : Imgproc.INTER_CUBIC);
        List<Mat> wp = new ArrayList<>();
        Core.split(sized, wp);
        Mat a = new Mat();
        if (wp.size() == 4) wp.get(3).convertTo(a, CvType.CV_32F, op.opacity() / 255.0);
        else a = new Mat(h, w, CvType.CV_32F, new Scalar(op.opacity()));
        Mat wColour = new Mat();
        Core.merge(wp.subList(0, 3), wColour);

        Mat roi = out.submat(new Rect(x, y, w, h));
        List<Mat> ip = new ArrayList<>();
        Core.split(roi, ip);
        Mat iColour = new Mat();
        Core.merge(ip.subList(0, 3), iColour);
        Mat fi = new Mat(), fw = new Mat(), a3 = new Mat(), blended = new Mat();
        iColour.convertTo(fi, CvType.CV_32FC3);
        wColour.convertTo(fw, CvType.CV_32FC3);
        Core.merge(List.of(a, a, a), a3);
        // i + (w - i) * a
        Core.subtract(fw, fi, blended);
        Core.multiply(blended, a3, blended);
        Core.add(blended, fi, blended);
        Mat colour8 = new Mat();
        blended.convertTo(colour8, CvType.CV_8UC3);
        if (out.channels() == 4) {
            Mat ia = new Mat(), oa = new Mat(), one = new Mat(h, w, CvType.CV_32F, new Scalar(1.0)), rest = new Mat();
            ip.get(3).convertTo(ia, CvType.CV_32F, 1 / 255.0);
            Core.subtract(one, a, rest);
            Core.multiply(ia, rest, ia);
            Core.add(a, ia, oa);
            Mat oa8 = new Mat();
            oa.convertTo(oa8, CvType.CV_8U, 255.0);
            List<Mat> cp = new ArrayList<>();
            Core.split(colour8, cp);
            cp.add(oa8);
            Mat merged = new Mat();
            Core.merge(cp, merged);
            merged.copyTo(roi);
            for (Mat m : cp) m.release();
            for (Mat m : List.of(ia, oa, one, rest, merged)) m.release();
        } else {
            colour8.copyTo(roi);
        }
        for (Mat m : wp) m.release();
        for (Mat m : ip) m.release();
        for (Mat m : List.of(sized, a, wColour, iColour, fi, fw, a3, blended, colour8)) m.release();
        return out;
    }
}
