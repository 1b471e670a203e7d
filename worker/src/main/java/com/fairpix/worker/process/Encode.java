package com.fairpix.worker.process;

import com.fairpix.core.job.Operation;
import org.opencv.core.Mat;
import org.opencv.core.MatOfByte;
import org.opencv.core.MatOfInt;
import org.opencv.core.Scalar;
import org.opencv.imgcodecs.Imgcodecs;
import org.opencv.imgproc.Imgproc;
import org.opencv.core.Core;
import org.opencv.core.CvType;
import java.util.ArrayList;
import java.util.List;

/**
 * Encode step with pinned parameters (OpenCV's own defaults are JPEG q95 and lossless WebP): JPEG
 * and WebP at the spec's quality, PNG at compression 6. Alpha is composited over white for JPEG
 * (OpenCV would drop the channel and show whatever colour hides under transparent pixels).
 * Encoders write no EXIF, ICC or XMP: metadata is stripped.
 */
public final class Encode {
    private Encode() {}

    public static byte[] apply(Mat image, Operation.Encode op) {
        Mat src = image;
        boolean composited = false;
        if (op.format().equals("jpeg") && image.channels() == 4) {
            src = flattenOnWhite(image);
            composited = true;
        }
        MatOfInt params = switch (op.format()) {
            case "jpeg" -> new MatOfInt(Imgcodecs.IMWRITE_JPEG_QUALITY, op.quality());
            case "webp" -> new MatOfInt(Imgcodecs.IMWRITE_WEBP_QUALITY, op.quality());
            case "png" -> new MatOfInt(Imgcodecs.IMWRITE_PNG_COMPRESSION, 6);
            default -> throw new IllegalArgumentException("format " + op.format());
        };
        MatOfByte out = new MatOfByte();
        try {
            if (!Imgcodecs.imencode("." + op.extension(), src, out, params)) {
                throw new IllegalStateException("OpenCV could not encode " + op.format());
            }
            return out.toArray();
        } finally {
            out.release();
            params.release();
            if (composited) src.release();
        }
    }

    /** alpha-over compositing: out = rgb × a + white × (1 − a). */
    static Mat flattenOnWhite(Mat bgra) {
        List<Mat> planes = new ArrayList<>();
        Core.split(bgra, planes);
        Mat alpha = new Mat();
        planes.get(3).convertTo(alpha, CvType.CV_32F, 1.0 / 255.0);
        Mat bgr = new Mat();
        Imgproc.cvtColor(bgra, bgr, Imgproc.COLOR_BGRA2BGR);
        Mat fg = new Mat();
        bgr.convertTo(fg, CvType.CV_32FC3);
        Mat alpha3 = new Mat();
        Core.merge(List.of(alpha, alpha, alpha), alpha3);
        Mat blended = new Mat();
        Mat white = new Mat(fg.size(), CvType.CV_32FC3, new Scalar(255, 255, 255));
        // fg*a + 255*(1-a) = (fg - 255)*a + 255
        Core.subtract(fg, white, blended);
        Core.multiply(blended, alpha3, blended);
        Core.add(blended, white, blended);
        Mat out = new Mat();
        blended.convertTo(out, CvType.CV_8UC3);
        for (Mat m : planes) m.release();
        for (Mat m : List.of(alpha, bgr, fg, alpha3, blended, white)) m.release();
        return out;
    }
}
