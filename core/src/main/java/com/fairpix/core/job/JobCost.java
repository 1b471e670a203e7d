package com.fairpix.core.job;

import com.fairpix.core.image.ImageFormat;
import com.fairpix.core.image.ImageHeader;
import java.util.List;
import java.util.Map;

/**
 * What a job will cost the worker, in CPU, from what admission knows before any pixel is decoded:
 * the header's decoded pixels (at the JPEG scale the decoder will use), the upload's bytes, and
 * each variant's output pixels times its encoder's effort. One token is {@link #MS_PER_TOKEN}
 * milliseconds of one core of the calibration machine (docs/admission.md, "Cost calibration",
 * measured by {@code scripts/bench-cost}):
 *
 * <pre>
 * cpu ms = BASE_MS + decode ms per MP(format) × decoded MP + decode ms per MB(format) × upload MB
 *        + Σ over variants: encode ms per MP(format, effort) × output MP
 * </pre>
 *
 * <p>The decode is counted once per job (one decode serves every variant); a variant's resize is
 * part of its encode term. Operations that work on the source's pixels (blur, sharpen) are not
 * priced up front: the worker measures each job's CPU and charges what it spent past the
 * estimate afterwards (the true-up, {@link com.fairpix.core.admission.TrueUp}), so a tenant pays what its job cost.
 */
public final class JobCost {
    /** Milliseconds of one core that one token stands for (a 3 MP JPEG to a 256 px thumbnail is about 3 tokens). */
    public static final double MS_PER_TOKEN = 5.0;
    /** Per job, whatever its size. */
    static final double BASE_MS = 1.2;

    private JobCost() {}

    /**
     * CPU ms per decoded megapixel and per megabyte of upload, by input format (the decoders this
     * worker loads, one thread): entropy decoding scales with the compressed bytes (WebP, JPEG),
     * the rest with the pixels. Fitted by {@code scripts/bench-cost} (docs/admission.md); GIF is not
     * calibrated and is priced as PNG.
     *
     * @return {ms per MP, ms per MB}
     */
    static double[] decodeMs(ImageFormat format) {
        return switch (format) {
            case JPEG -> new double[] {12.6, 13.3};
            case PNG, GIF -> new double[] {13.3, 4.2};
            case WEBP -> new double[] {2.9, 65.6};
            case TIFF -> new double[] {13.5, 3.3};
            case BMP -> new double[] {0.0, 1.2};
            case HEIC -> new double[] {11.6, 5.9};
            case AVIF -> new double[] {11.1, 19.4};
        };
    }

    /** CPU ms per output megapixel of one variant's resize and encode, by encoder and effort. */
    static double encodeMsPerMegapixel(Operation.Encode encode) {
        return switch (encode.format()) {
            case "webp" -> encode.lossless() ? 430.0 : 93.0;
            case "png" -> 214.0;
            case "avif" -> AVIF_MS_BY_SPEED[Math.max(0, Math.min(10, encode.speed()))];
            default -> 8.0; // jpeg (auto is resolved to a format before admission)
        };
    }

    /**
     * AVIF encode ms per output megapixel by libaom's cpu-used 0..10: speeds 4, 6, 8 and 9 measured,
     * 5 and 7 interpolated geometrically, below 4 doubled a step (libaom's own slope), 10 as 9.
     */
    static final double[] AVIF_MS_BY_SPEED = {50400, 25200, 12600, 6300, 3150, 1332, 563, 332, 196, 54, 54};

    /**
     * Pixels the decoder will produce: the header's decoded pixels ({@link ImageHeader#gatePixels()}),
     * divided by the square of the JPEG scale denominator {@link #jpegReduction} for a JPEG.
     */
    public static long decodedPixels(ImageHeader header, JobSpec spec) {
        if (header.format() != ImageFormat.JPEG) return header.gatePixels();
        int r = jpegReduction(header, spec);
        return (long) Math.ceil((double) header.width() / r) * (long) Math.ceil((double) header.height() / r);
    }

    /**
     * The job's estimated CPU time.
     *
     * @param uploadBytes the original's size, bytes
     * @param outputs     every variant's estimate ({@link OutputSize#of})
     * @return milliseconds of one core
     */
    public static double cpuMillis(ImageHeader header, long uploadBytes, JobSpec spec, Map<String, OutputSize.Estimate> outputs) {
        double[] decode = decodeMs(header.format());
        double ms = BASE_MS + decode[0] * decodedPixels(header, spec) / 1e6 + decode[1] * uploadBytes / 1e6;
        for (Map.Entry<String, List<Operation>> v : spec.variants().entrySet()) {
            OutputSize.Estimate out = outputs.get(v.getKey());
            if (out == null) continue;
            Operation.Encode encode = null;
            for (Operation op : v.getValue()) if (op instanceof Operation.Encode e) encode = e;
            double perMp = encode == null ? encodeMsPerMegapixel(new Operation.Encode("jpeg", 80, false, 6, false)) : encodeMsPerMegapixel(encode);
            ms += perMp * out.pixels() / 1e6;
        }
        return ms;
    }

    /** {@link #cpuMillis} in tokens. */
    public static double tokens(ImageHeader header, long uploadBytes, JobSpec spec, Map<String, OutputSize.Estimate> outputs) {
        return cpuMillis(header, uploadBytes, spec, outputs) / MS_PER_TOKEN;
    }

    /**
     * The largest JPEG scale denominator (1, 2, 4, 8) that keeps the decoded image at least as large
     * as every variant needs (libjpeg's shrink-on-load). A variant needs the full size when it has no
     * resampling step ({@link OperationType#scales}, a resize), or when a step that
     * {@link OperationType#worksInSourcePixels works in source pixels} (crop, blur, sharpen,
     * watermark) comes before it. Steps on the way change the size as their geometry says (rotate).
     */
    public static int jpegReduction(ImageHeader header, JobSpec spec) {
        double allowed = 8;
        for (List<Operation> ops : spec.variants().values()) {
            OutputSize.Estimate size = new OutputSize.Estimate(header.displayWidth(), header.displayHeight(), 0, 0);
            double[] s = null;
            for (Operation op : ops) {
                OperationType<?> type = Operations.of(op);
                s = type.scalesOf(op, size.width(), size.height());
                if (s != null || type.worksInSourcePixels()) break;
                size = type.geometryOf(op, size);
            }
            if (s == null) return 1;
            allowed = Math.min(allowed, 1.0 / Math.max(s[0], s[1]));
        }
        int w = header.width(), h = header.height();
        for (int r : new int[] {8, 4, 2}) {
            // Keep a few pixels on each side: a 1-pixel decode breaks OpenCV's REDUCED path.
            if (r <= allowed && w / r >= 2 && h / r >= 2) return r;
        }
        return 1;
    }
}
