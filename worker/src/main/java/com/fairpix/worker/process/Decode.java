package com.fairpix.worker.process;

import com.fairpix.core.error.JobFailure;
import com.fairpix.core.image.ImageFormat;
import com.fairpix.core.image.ImageHeader;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.Operation;
import java.util.List;
import org.opencv.core.Core;
import org.opencv.core.CvException;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.core.MatOfByte;
import org.opencv.imgcodecs.Imgcodecs;
import org.opencv.imgproc.Imgproc;

/**
 * Decode step: header checks, shrink-on-load for JPEG (libjpeg DCT scaling via
 * {@code IMREAD_REDUCED_COLOR_2/4/8}, chosen so the decoded image still covers the largest
 * requested output), EXIF auto-orientation, and normalisation to 8-bit BGR or BGRA.
 *
 * <p>JPEG is decoded with {@code IMREAD_COLOR}/{@code REDUCED}, where OpenCV applies the EXIF
 * orientation. PNG and WebP are decoded {@code IMREAD_UNCHANGED} to keep alpha and 16 bits, then
 * converted here: 16-bit scaled by 1/257 (OpenCV's own conversion clips), grey expanded to BGR.
 */
public final class Decode {
    private final long maxPixels;

    /** @param maxPixels largest source accepted, pixels */
    public Decode(long maxPixels) {
        this.maxPixels = maxPixels;
    }

    /**
     * @throws JobFailure.Permanent reasons {@code unsupported-format}, {@code undecodable-header},
     *                              {@code too-many-pixels}, {@code truncated}, {@code undecodable}
     */
    public Decoded apply(byte[] data, JobSpec spec) {
        ImageHeader header;
        try {
            header = ImageHeader.read(data);
        } catch (ImageHeader.HeaderException e) {
            throw new JobFailure.Permanent("undecodable-header", e.getMessage());
        }
        if (header == null) throw new JobFailure.Permanent("unsupported-format", "not a JPEG, PNG or WebP image");
        if (header.pixels() > maxPixels) {
            throw new JobFailure.Permanent("too-many-pixels", header.width() + "x" + header.height() + " is over the worker limit of " + maxPixels + " pixels");
        }
        // OpenCV fills a truncated file's missing part with grey and only warns on stderr.
        if (!header.complete()) throw new JobFailure.Permanent("truncated", "the " + header.format().id() + " file ends before its end marker");

        int reduction = header.format() == ImageFormat.JPEG ? reductionFor(header, spec) : 1;
        int flags = switch (reduction) {
            case 8 -> Imgcodecs.IMREAD_REDUCED_COLOR_8;
            case 4 -> Imgcodecs.IMREAD_REDUCED_COLOR_4;
            case 2 -> Imgcodecs.IMREAD_REDUCED_COLOR_2;
            default -> header.format() == ImageFormat.JPEG ? Imgcodecs.IMREAD_COLOR : Imgcodecs.IMREAD_UNCHANGED;
        };
        Mat raw;
        MatOfByte buffer = new MatOfByte(data);
        try {
            raw = Imgcodecs.imdecode(buffer, flags);
        } catch (CvException e) {
            throw new JobFailure.Permanent("undecodable", "the decoder refused the image: " + e.getMessage());
        } finally {
            buffer.release();
        }
        if (raw.empty()) {
            raw.release();
            throw new JobFailure.Permanent("undecodable", "the " + header.format().id() + " data cannot be decoded");
        }
        return new Decoded(normalise(raw), reduction);
    }

    /**
     * The largest JPEG scale denominator (1, 2, 4, 8) that keeps the decoded image at least as large
     * as every variant needs. A variant without a resize needs the full size.
     */
    static int reductionFor(ImageHeader header, JobSpec spec) {
        double allowed = 8;
        int w = header.displayWidth(), h = header.displayHeight();
        for (List<Operation> ops : spec.variants().values()) {
            Operation.Resize resize = ops.stream().filter(o -> o instanceof Operation.Resize).map(o -> (Operation.Resize) o).findFirst().orElse(null);
            if (resize == null) return 1;
            double sx = resize.width() == null ? Double.NaN : (double) resize.width() / w;
            double sy = resize.height() == null ? Double.NaN : (double) resize.height() / h;
            double scale = switch (resize.fit()) {
                case CONTAIN -> Double.isNaN(sx) ? sy : Double.isNaN(sy) ? sx : Math.min(sx, sy);
                case COVER, FILL -> Math.max(sx, sy);
            };
            allowed = Math.min(allowed, 1.0 / scale);
        }
        int reduction = 1;
        for (int r : new int[] {8, 4, 2}) {
            // Keep a few pixels on each side: libjpeg rounds up, and a 1-pixel decode breaks OpenCV's resize.
            if (r <= allowed && w / r >= 2 && h / r >= 2) {
                reduction = r;
                break;
            }
        }
        return reduction;
    }

    /** To 8 bits, and to BGR or BGRA. */
    private static Mat normalise(Mat raw) {
        Mat m = raw;
        if (m.depth() == CvType.CV_16U) {
            Mat eight = new Mat();
            m.convertTo(eight, CvType.CV_8U, 1.0 / 257.0);
            m.release();
            m = eight;
        } else if (m.depth() != CvType.CV_8U) {
            Mat eight = new Mat();
            Core.normalize(m, eight, 0, 255, Core.NORM_MINMAX, CvType.CV_8U);
            m.release();
            m = eight;
        }
        int code = switch (m.channels()) {
            case 1 -> Imgproc.COLOR_GRAY2BGR;
            case 2 -> -1; // grey + alpha: handled below
            default -> 0;
        };
        if (code > 0) {
            Mat bgr = new Mat();
            Imgproc.cvtColor(m, bgr, code);
            m.release();
            return bgr;
        }
        if (code < 0) {
            // OpenCV has no GRAY+ALPHA conversion: split, expand the grey, merge back with alpha.
            List<Mat> planes = new java.util.ArrayList<>();
            Core.split(m, planes);
            Mat bgra = new Mat();
            Core.merge(List.of(planes.get(0), planes.get(0), planes.get(0), planes.get(1)), bgra);
            planes.forEach(Mat::release);
            m.release();
            return bgra;
        }
        return m;
    }
}
