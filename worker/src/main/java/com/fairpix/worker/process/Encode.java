package com.fairpix.worker.process;

import com.fairpix.core.job.Operation;
import org.opencv.core.Mat;
import org.opencv.core.MatOfByte;
import org.opencv.core.MatOfInt;
import org.opencv.imgcodecs.Imgcodecs;

/**
 * Encode step with pinned parameters (OpenCV's own defaults are JPEG q95, lossless WebP and PNG
 * level 1: docs/pipeline.md, OpenCV facts): JPEG at the spec's quality, baseline or progressive; WebP lossy at the
 * quality unless {@code lossless} (OpenCV's switch is a quality above 100); PNG at the spec's zlib
 * level; AVIF through {@link LibHeif} (libaom) at the spec's quality and speed, alpha kept. Alpha is flattened over the background for JPEG. Encoders write no EXIF, ICC or XMP:
 * metadata is stripped.
 */
public final class Encode {
    private Encode() {}

    /** White background. */
    public static byte[] apply(Mat image, Operation.Encode op) {
        return apply(image, op, Flatten.WHITE);
    }

    /** Alpha-over compositing on white; see {@link Flatten}. @return a new 3-channel Mat */
    static Mat flattenOnWhite(Mat bgra) {
        return Flatten.apply(bgra, Flatten.WHITE);
    }

    /** @param background blue, green, red 0–255, used when the format has no alpha */
    public static byte[] apply(Mat image, Operation.Encode op, int[] background) {
        Mat src = image;
        boolean flattened = false;
        if (op.format().equals("jpeg") && image.channels() == 4) {
            src = Flatten.apply(image, background);
            flattened = true;
        }
        if (op.format().equals("avif")) return LibHeif.encodeAvif(image, op.quality(), op.speed());
        MatOfInt params = switch (op.format()) {
            case "jpeg" -> new MatOfInt(Imgcodecs.IMWRITE_JPEG_QUALITY, op.quality(), Imgcodecs.IMWRITE_JPEG_PROGRESSIVE, op.progressive() ? 1 : 0);
            case "webp" -> new MatOfInt(Imgcodecs.IMWRITE_WEBP_QUALITY, op.lossless() ? 101 : op.quality());
            case "png" -> new MatOfInt(Imgcodecs.IMWRITE_PNG_COMPRESSION, op.compression());
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
            if (flattened) src.release();
        }
    }
}
