package com.fairpix.core.job;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sizes a variant's steps make from a source of known size, computed before anything is
 * decoded: each operation's {@link OperationType#geometry} (the same arithmetic as the worker's
 * resize fits, crop clipping and rotation), in order. Used at submission to refuse a job whose output (or any
 * intermediate image) is over the limits, and to charge for output pixels.
 */
public final class OutputSize {
    private OutputSize() {}

    /**
     * @param width       final width, pixels
     * @param height      final height, pixels
     * @param peakPixels  the largest image any step of the variant holds (the source included), pixels
     * @param largestSide the largest width or height of any step, pixels
     */
    public record Estimate(long width, long height, long peakPixels, long largestSide) {
        public long pixels() {
            return width * height;
        }

        /** The image after a step that makes it {@code w × h} pixels: the new size, held in the peak and largest side. */
        public Estimate then(long w, long h) {
            return new Estimate(w, h, Math.max(peakPixels, w * h), Math.max(largestSide, Math.max(w, h)));
        }

        /** This size, having held a {@code w × h} image on the way (cover's scaled copy before its crop). */
        public Estimate holding(long w, long h) {
            return new Estimate(width, height, Math.max(peakPixels, w * h), Math.max(largestSide, Math.max(w, h)));
        }
    }

    /** Every variant's estimate, in spec order. {@code width × height} is the source as displayed (EXIF-upright). */
    public static Map<String, Estimate> of(JobSpec spec, int width, int height) {
        Map<String, Estimate> out = new LinkedHashMap<>();
        spec.variants().forEach((name, ops) -> out.put(name, of(ops, width, height)));
        return out;
    }

    /** One variant's estimate: each step's {@link OperationType#geometry}, in order. */
    public static Estimate of(List<Operation> ops, int width, int height) {
        long w = Math.max(1, width), h = Math.max(1, height);
        Estimate e = new Estimate(w, h, w * h, Math.max(w, h));
        for (Operation op : ops) {
            e = Operations.of(op).geometryOf(op, e);
            // Whatever a step's geometry counted, the image it leaves is held too.
            e = e.then(e.width(), e.height());
        }
        return e;
    }
}
