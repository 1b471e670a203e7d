package com.fairpix.core.job;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sizes a variant's steps make from a source of known size, computed before anything is
 * decoded: the same arithmetic as the worker's resize fits (sharp's contain, cover, fill, inside,
 * outside), crop clipping and rotation. Used at submission to refuse a job whose output (or any
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
    }

    /** Every variant's estimate, in spec order. {@code width × height} is the source as displayed (EXIF-upright). */
    public static Map<String, Estimate> of(JobSpec spec, int width, int height) {
        Map<String, Estimate> out = new LinkedHashMap<>();
        spec.variants().forEach((name, ops) -> out.put(name, of(ops, width, height)));
        return out;
    }

    /** One variant's estimate. */
    public static Estimate of(List<Operation> ops, int width, int height) {
        long w = Math.max(1, width), h = Math.max(1, height);
        long peak = w * h;
        long side = Math.max(w, h);
        for (Operation op : ops) {
            switch (op) {
                case Operation.Resize r -> {
                    double[] s = r.scales(w, h);
                    if (r.fit() == Operation.Fit.COVER) {
                        // cover scales first (this intermediate can be far larger than the box), then crops
                        long sw = Math.max(1, (long) Math.ceil(w * s[0] - 1e-9));
                        long sh = Math.max(1, (long) Math.ceil(h * s[1] - 1e-9));
                        peak = Math.max(peak, sw * sh);
                        side = Math.max(side, Math.max(sw, sh));
                        w = Math.min(r.width(), sw);
                        h = Math.min(r.height(), sh);
                    } else {
                        boolean exact = r.fit() == Operation.Fit.FILL && !r.withoutEnlargement();
                        long nw = exact && r.width() != null ? r.width() : Math.max(1, Math.round(w * s[0]));
                        long nh = exact && r.height() != null ? r.height() : Math.max(1, Math.round(h * s[1]));
                        w = nw;
                        h = nh;
                    }
                }
                case Operation.Crop c -> {
                    long x0 = Math.min(c.left(), w), y0 = Math.min(c.top(), h);
                    w = Math.max(1, Math.min((long) c.left() + c.width(), w) - x0);
                    h = Math.max(1, Math.min((long) c.top() + c.height(), h) - y0);
                }
                case Operation.Rotate r -> {
                    if (r.angle() == 90 || r.angle() == 270) {
                        long t = w;
                        w = h;
                        h = t;
                    }
                }
                default -> { }
            }
            peak = Math.max(peak, w * h);
            side = Math.max(side, Math.max(w, h));
        }
        return new Estimate(w, h, peak, side);
    }
}
