package com.fairpix.core.job;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.Locale;

/**
 * One step of a variant, applied in order to the decoded source. Serialised with an {@code op} member.
 *
 * <p>Names and semantics follow sharp (resize fits, flip/flop, flatten background) and imgproxy
 * (gravity, watermark) so that users of either recognise them: https://sharp.pixelplumbing.com/api-resize,
 * https://docs.imgproxy.net/usage/processing.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "op")
@JsonSubTypes({
    @JsonSubTypes.Type(value = Operation.Resize.class, name = "resize"),
    @JsonSubTypes.Type(value = Operation.Crop.class, name = "crop"),
    @JsonSubTypes.Type(value = Operation.Rotate.class, name = "rotate"),
    @JsonSubTypes.Type(value = Operation.Flip.class, name = "flip"),
    @JsonSubTypes.Type(value = Operation.Flop.class, name = "flop"),
    @JsonSubTypes.Type(value = Operation.Blur.class, name = "blur"),
    @JsonSubTypes.Type(value = Operation.Sharpen.class, name = "sharpen"),
    @JsonSubTypes.Type(value = Operation.Grayscale.class, name = "grayscale"),
    @JsonSubTypes.Type(value = Operation.Watermark.class, name = "watermark"),
    @JsonSubTypes.Type(value = Operation.Background.class, name = "background"),
    @JsonSubTypes.Type(value = Operation.Encode.class, name = "encode")
})
public sealed interface Operation {

    /** How a resize fits the source into width × height, as sharp names it. */
    enum Fit {
        /** Scale to fit inside the box, keeping the aspect ratio; output may be smaller on one side. */
        @JsonProperty("contain") CONTAIN,
        /** Scale to cover the box, keeping the aspect ratio, then crop to exactly the box at the gravity. */
        @JsonProperty("cover") COVER,
        /** Stretch to exactly the box, ignoring the aspect ratio. */
        @JsonProperty("fill") FILL,
        /** Like contain, but never enlarges (sharp's {@code inside}). */
        @JsonProperty("inside") INSIDE,
        /** Scale so both sides are at least the box, keeping the aspect ratio; no crop, never enlarges. */
        @JsonProperty("outside") OUTSIDE;

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Where a crop (cover resize) or a watermark sits: the centre, a compass point, or {@code smart}
     * (keep the busiest part of the picture, by Shannon entropy of luminance, as sharp's
     * {@code strategy.entropy}; for watermarks it means the centre).
     */
    enum Gravity {
        @JsonProperty("centre") CENTRE(0, 0),
        @JsonProperty("north") NORTH(0, -1),
        @JsonProperty("northeast") NORTHEAST(1, -1),
        @JsonProperty("east") EAST(1, 0),
        @JsonProperty("southeast") SOUTHEAST(1, 1),
        @JsonProperty("south") SOUTH(0, 1),
        @JsonProperty("southwest") SOUTHWEST(-1, 1),
        @JsonProperty("west") WEST(-1, 0),
        @JsonProperty("northwest") NORTHWEST(-1, -1),
        @JsonProperty("smart") SMART(0, 0);

        /** -1 left/top, 0 centre, 1 right/bottom. */
        public final int dx;
        public final int dy;

        Gravity(int dx, int dy) {
            this.dx = dx;
            this.dy = dy;
        }

        /** Parses {@code centre}/{@code center} and the lower-case names; null when unknown. */
        public static Gravity parse(String s) {
            String v = s.toLowerCase(Locale.ROOT);
            if (v.equals("center")) return CENTRE;
            for (Gravity g : values()) if (g.id().equals(v)) return g;
            return null;
        }

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Resize to a box in pixels. Either side may be null (then only the other constrains).
     *
     * @param withoutEnlargement never upscale a source smaller than the box
     * @param gravity            which part {@code cover} keeps
     */
    record Resize(Integer width, Integer height, Fit fit, boolean withoutEnlargement, Gravity gravity) implements Operation {
        public Resize {
            if (fit == null) fit = Fit.CONTAIN;
            if (gravity == null) gravity = Gravity.CENTRE;
        }

        /**
         * The scale this resize applies to a {@code sourceWidth × sourceHeight} source (pixels), per
         * axis ({@code fill} stretches): {sx, sy}. One definition for the worker's resize, its
         * shrink-on-load plan and ingest's output-size check.
         */
        public double[] scales(long sourceWidth, long sourceHeight) {
            double sx = width == null ? Double.NaN : (double) width / sourceWidth;
            double sy = height == null ? Double.NaN : (double) height / sourceHeight;
            double s = switch (fit) {
                case CONTAIN, INSIDE -> Double.isNaN(sx) ? sy : Double.isNaN(sy) ? sx : Math.min(sx, sy);
                case COVER, OUTSIDE -> Double.isNaN(sx) ? sy : Double.isNaN(sy) ? sx : Math.max(sx, sy);
                case FILL -> Double.NaN;
            };
            boolean never = withoutEnlargement || fit == Fit.INSIDE || fit == Fit.OUTSIDE;
            if (fit == Fit.FILL) {
                double fx = Double.isNaN(sx) ? 1 : sx, fy = Double.isNaN(sy) ? 1 : sy;
                if (never) {
                    fx = Math.min(fx, 1);
                    fy = Math.min(fy, 1);
                }
                return new double[] {fx, fy};
            }
            if (never) s = Math.min(s, 1.0);
            return new double[] {s, s};
        }

        /** Centre gravity. */
        public Resize(Integer width, Integer height, Fit fit, boolean withoutEnlargement) {
            this(width, height, fit, withoutEnlargement, Gravity.CENTRE);
        }
    }

    /** Extract a rectangle, pixels, in the coordinates of the image as it is at this step. */
    record Crop(int left, int top, int width, int height) implements Operation {}

    /** Rotate clockwise by 90, 180 or 270 degrees (after EXIF auto-orientation). */
    record Rotate(int angle) implements Operation {}

    /** Mirror top to bottom (about the horizontal axis), as sharp's {@code flip}. */
    record Flip() implements Operation {}

    /** Mirror left to right (about the vertical axis), as sharp's {@code flop}. */
    record Flop() implements Operation {}

    /** Gaussian blur; sigma in pixels (0.3–1000, as sharp). */
    record Blur(double sigma) implements Operation {}

    /** Unsharp mask; sigma of its Gaussian in pixels (0.3–10), amount 0–10 (1 = add the full detail once). */
    record Sharpen(double sigma, double amount) implements Operation {}

    /** Convert to grey (ITU-R BT.601 luma), kept as 3 identical channels so every encoder accepts it. */
    record Grayscale() implements Operation {}

    /**
     * Overlay an image from the tenant's own storage.
     *
     * @param key     S3 key, must start with {@code tenants/{tenant}/}
     * @param gravity where it sits (smart means centre)
     * @param opacity 0–1, multiplied with the watermark's own alpha
     * @param scale   watermark width as a fraction of the image width, 0 &lt; scale ≤ 1
     * @param margin  distance from the edges, pixels
     */
    record Watermark(String key, Gravity gravity, double opacity, double scale, int margin) implements Operation {}

    /**
     * Colour that transparent pixels are composited over when the output has no alpha (JPEG);
     * {@code #rrggbb}. Default white.
     */
    record Background(String colour) implements Operation {
        /** Blue, green, red, 0–255, in OpenCV's channel order. */
        public int[] bgr() {
            int rgb = Integer.parseInt(colour.substring(1), 16);
            return new int[] {rgb & 0xFF, (rgb >> 8) & 0xFF, (rgb >> 16) & 0xFF};
        }
    }

    /**
     * Output encoding: format jpeg | png | webp | avif; quality 1–100 (jpeg, lossy webp, avif);
     * progressive (jpeg); compression 0–9 (png, zlib level); lossless (webp); speed 1–9 (avif: the
     * AV1 encoder's speed preset, libaom {@code cpu-used}; higher is faster and larger).
     */
    record Encode(String format, int quality, boolean progressive, int compression, boolean lossless, int speed) implements Operation {
        public static final int DEFAULT_PNG_COMPRESSION = 6;
        /** libaom's speed 6: about as fast as a JPEG-size photo thumbnail needs, near speed 4's size. */
        public static final int DEFAULT_AVIF_SPEED = 6;

        public Encode {
            // A message from before AVIF output has no speed: Jackson gives 0, which means the default.
            if (speed == 0) speed = DEFAULT_AVIF_SPEED;
        }

        public Encode(String format, int quality, boolean progressive, int compression, boolean lossless) {
            this(format, quality, progressive, compression, lossless, DEFAULT_AVIF_SPEED);
        }

        /** Baseline JPEG, lossy WebP, PNG compression 6, AVIF speed 6. */
        public Encode(String format, int quality) {
            this(format, quality, false, DEFAULT_PNG_COMPRESSION, false);
        }

        public String extension() {
            return format.equals("jpeg") ? "jpg" : format;
        }

        public String contentType() {
            return "image/" + format;
        }
    }
}
