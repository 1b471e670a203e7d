package com.fairpix.core.job;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.annotation.JsonTypeIdResolver;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One step of a variant, applied in order to the decoded source. Serialised with an {@code op} member.
 *
 * <p>Names and semantics follow sharp (resize fits, flip/flop, flatten background) and imgproxy
 * (gravity, watermark) so that users of either recognise them: https://sharp.pixelplumbing.com/api-resize,
 * https://docs.imgproxy.net/usage/processing.
 *
 * <p>Each operation is a record holding its {@link OperationType} as {@code TYPE}: name, members,
 * parser, geometry, whether it works in source pixels and its memory reservation, beside its fields.
 * The types are registered in {@link Operations}; the worker's pixel step for each is registered in
 * {@code worker/process/Steps}. Not sealed: a new operation is a record of its own file
 * (docs/pipeline.md, "Adding an operation").
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.CUSTOM, property = "op")
@JsonTypeIdResolver(Operations.TypeIds.class)
public interface Operation {

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
        public static final OperationType<Resize> TYPE = new OperationType<>("resize", Resize.class,
                List.of("width", "height", "fit", "withoutEnlargement", "gravity")) {
            @Override
            public Resize parse(OperationInput in) {
                Integer w = in.side("width");
                Integer h = in.side("height");
                if (w == null && h == null && !in.has("width") && !in.has("height")) in.error("resize needs width or height (pixels)");
                Fit fit = Fit.CONTAIN;
                if (in.has("fit")) {
                    try {
                        fit = Fit.valueOf(in.node().get("fit").asText().toUpperCase(Locale.ROOT));
                    } catch (IllegalArgumentException ex) {
                        in.error("fit must be one of contain, cover, fill, inside, outside");
                    }
                }
                // A side given but refused (over the limits) was already reported: only a side not given is missing.
                boolean noEnlargeGiven = in.has("withoutEnlargement") && in.node().get("withoutEnlargement").isBoolean()
                        && in.node().get("withoutEnlargement").asBoolean();
                if ((fit == Fit.COVER || fit == Fit.FILL) && (!in.has("width") || !in.has("height"))) {
                    in.error("fit " + fit.id() + " needs both width and height");
                } else if ((fit == Fit.COVER || fit == Fit.FILL) && !noEnlargeGiven) {
                    // cover and fill make exactly the box (unless they may not enlarge): too many pixels whatever the source
                    in.boxPixels(w, h, "resize " + fit.id());
                }
                Gravity gravity = in.gravity();
                if (in.has("gravity") && fit != Fit.COVER) in.error("gravity applies only to fit cover");
                boolean noEnlarge = in.bool("withoutEnlargement");
                in.unknownMembers();
                return new Resize(w, h, fit, noEnlarge, gravity);
            }

            @Override
            public OutputSize.Estimate geometry(Resize r, OutputSize.Estimate in) {
                long w = in.width(), h = in.height();
                double[] s = r.scales(w, h);
                if (r.fit() == Fit.COVER) {
                    // cover scales first (this intermediate can be far larger than the box), then crops
                    long sw = Math.max(1, (long) Math.ceil(w * s[0] - 1e-9));
                    long sh = Math.max(1, (long) Math.ceil(h * s[1] - 1e-9));
                    return in.holding(sw, sh).then(Math.min(r.width(), sw), Math.min(r.height(), sh));
                }
                boolean exact = r.fit() == Fit.FILL && !r.withoutEnlargement();
                long nw = exact && r.width() != null ? r.width() : Math.max(1, Math.round(w * s[0]));
                long nh = exact && r.height() != null ? r.height() : Math.max(1, Math.round(h * s[1]));
                return in.then(nw, nh);
            }

            @Override
            public double[] scales(Resize r, long width, long height) {
                return r.scales(width, height);
            }

            @Override
            public long reservedOutputPixels(Resize r) {
                long w = r.width() == null ? r.height() : r.width();
                long h = r.height() == null ? r.width() : r.height();
                return w * h * (r.fit() == Fit.OUTSIDE || r.fit() == Fit.COVER ? 2 : 1);
            }
        };

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
    record Crop(int left, int top, int width, int height) implements Operation {
        public static final OperationType<Crop> TYPE = new OperationType<>("crop", Crop.class, List.of("left", "top", "width", "height")) {
            @Override
            public Crop parse(OperationInput in) {
                in.unknownMembers();
                Integer left = in.integer("left", 0, JobSpec.MAX_SIDE - 1, 0);
                Integer top = in.integer("top", 0, JobSpec.MAX_SIDE - 1, 0);
                Integer w = in.side("width");
                Integer h = in.side("height");
                if (w == null || h == null) {
                    in.error("crop needs width and height (pixels)");
                    return null;
                }
                in.boxPixels(w, h, "crop");
                return left == null || top == null ? null : new Crop(left, top, w, h);
            }

            @Override
            public OutputSize.Estimate geometry(Crop c, OutputSize.Estimate in) {
                long w = in.width(), h = in.height();
                long x0 = Math.min(c.left(), w), y0 = Math.min(c.top(), h);
                return in.then(Math.max(1, Math.min((long) c.left() + c.width(), w) - x0),
                        Math.max(1, Math.min((long) c.top() + c.height(), h) - y0));
            }

            @Override
            public boolean worksInSourcePixels() {
                return true;
            }
        };
    }

    /** Rotate clockwise by 90, 180 or 270 degrees (after EXIF auto-orientation). */
    record Rotate(int angle) implements Operation {
        public static final OperationType<Rotate> TYPE = new OperationType<>("rotate", Rotate.class, List.of("angle")) {
            @Override
            public Rotate parse(OperationInput in) {
                in.unknownMembers();
                var a = in.node().get("angle");
                if (a == null || !a.isInt() || !Set.of(90, 180, 270).contains(a.asInt())) {
                    in.error("rotate needs angle 90, 180 or 270 (degrees clockwise)");
                    return null;
                }
                return new Rotate(a.asInt());
            }

            @Override
            public OutputSize.Estimate geometry(Rotate r, OutputSize.Estimate in) {
                return r.angle() == 90 || r.angle() == 270 ? in.then(in.height(), in.width()) : in;
            }
        };
    }

    /** Mirror top to bottom (about the horizontal axis), as sharp's {@code flip}. */
    record Flip() implements Operation {
        public static final OperationType<Flip> TYPE = new OperationType<>("flip", Flip.class, List.of()) {
            @Override
            public Flip parse(OperationInput in) {
                in.unknownMembers();
                return new Flip();
            }
        };
    }

    /** Mirror left to right (about the vertical axis), as sharp's {@code flop}. */
    record Flop() implements Operation {
        public static final OperationType<Flop> TYPE = new OperationType<>("flop", Flop.class, List.of()) {
            @Override
            public Flop parse(OperationInput in) {
                in.unknownMembers();
                return new Flop();
            }
        };
    }

    /** Gaussian blur; sigma in pixels (0.3–1000, as sharp). */
    record Blur(double sigma) implements Operation {
        public static final OperationType<Blur> TYPE = new OperationType<>("blur", Blur.class, List.of("sigma")) {
            @Override
            public Blur parse(OperationInput in) {
                in.unknownMembers();
                double max = in.limits().maxBlurSigma();
                Double sigma = in.number("sigma", 0.3, max, null);
                if (sigma == null && !in.has("sigma")) in.error("blur needs sigma (pixels, 0.3–" + OperationInput.fmt(max) + ")");
                return sigma == null ? null : new Blur(sigma);
            }

            @Override
            public boolean worksInSourcePixels() {
                return true;
            }
        };
    }

    /** Unsharp mask; sigma of its Gaussian in pixels (0.3–10), amount 0–10 (1 = add the full detail once). */
    record Sharpen(double sigma, double amount) implements Operation {
        public static final OperationType<Sharpen> TYPE = new OperationType<>("sharpen", Sharpen.class, List.of("sigma", "amount")) {
            @Override
            public Sharpen parse(OperationInput in) {
                in.unknownMembers();
                Double sigma = in.number("sigma", 0.3, 10, 1.0);
                Double amount = in.number("amount", 0, 10, 1.0);
                return sigma == null || amount == null ? null : new Sharpen(sigma, amount);
            }

            @Override
            public boolean worksInSourcePixels() {
                return true;
            }
        };
    }

    /** Convert to grey (ITU-R BT.601 luma), kept as 3 identical channels so every encoder accepts it. */
    record Grayscale() implements Operation {
        public static final OperationType<Grayscale> TYPE = new OperationType<>("grayscale", Grayscale.class, List.of(), List.of("greyscale")) {
            @Override
            public Grayscale parse(OperationInput in) {
                in.unknownMembers();
                return new Grayscale();
            }
        };
    }

    /**
     * Overlay an image from the tenant's own storage.
     *
     * @param key     S3 key, must start with {@code tenants/{tenant}/}
     * @param gravity where it sits (smart means centre)
     * @param opacity 0–1, multiplied with the watermark's own alpha
     * @param scale   watermark width as a fraction of the image width, 0 &lt; scale ≤ 1
     * @param margin  distance from the edges, pixels
     */
    record Watermark(String key, Gravity gravity, double opacity, double scale, int margin) implements Operation {
        public static final OperationType<Watermark> TYPE = new OperationType<>("watermark", Watermark.class,
                List.of("key", "gravity", "opacity", "scale", "margin")) {
            @Override
            public Watermark parse(OperationInput in) {
                in.unknownMembers();
                String key = in.node().hasNonNull("key") ? in.node().get("key").asText() : "";
                String prefix = in.tenant() == null ? "tenants/" : "tenants/" + in.tenant() + "/";
                boolean ok = true;
                if (key.isEmpty()) {
                    in.error("watermark needs key, the S3 key of an image under " + prefix);
                    ok = false;
                } else if (JobSpec.utf8Length(key) > in.limits().maxKeyLength()) {
                    // S3 limits keys in UTF-8 bytes, so does the setting.
                    in.error("watermark key is " + JobSpec.utf8Length(key) + " bytes; at most " + in.limits().maxKeyLength()
                            + " (" + com.fairpix.core.config.Setting.SPEC_MAX_KEY_LENGTH.key() + ")");
                    ok = false;
                } else if (key.chars().anyMatch(ch -> com.fairpix.core.log.LogSafe.isControl((char) ch))) {
                    in.error("watermark key must not contain control characters");
                    ok = false;
                } else if (!key.startsWith(prefix) || key.contains("..") || key.contains("//") || key.contains("\\")) {
                    // A tenant may only overlay its own objects; never another tenant's originals or results.
                    in.error("watermark key must lie under the tenant's own prefix " + prefix);
                    ok = false;
                }
                Gravity gravity = in.has("gravity") ? in.gravity() : Gravity.SOUTHEAST;
                Double opacity = in.number("opacity", 0, 1, 0.5);
                Double scale = in.number("scale", 0.01, 1, 0.25);
                Integer margin = in.integer("margin", 0, 1000, 10);
                if (!ok || gravity == null || opacity == null || scale == null || margin == null) return null;
                return new Watermark(key, gravity, opacity, scale, margin);
            }

            @Override
            public boolean worksInSourcePixels() {
                return true;
            }
        };
    }

    /**
     * Colour that transparent pixels are composited over when the output has no alpha (JPEG);
     * {@code #rrggbb}. Default white.
     */
    record Background(String colour) implements Operation {
        private static final Pattern COLOUR = Pattern.compile("#[0-9a-f]{6}");

        public static final OperationType<Background> TYPE = new OperationType<>("background", Background.class, List.of("colour")) {
            @Override
            public Background parse(OperationInput in) {
                in.unknownMembers("color");
                var c = in.has("colour") ? in.node().get("colour") : in.node().get("color");
                String v = c == null ? "" : c.asText().toLowerCase(Locale.ROOT);
                if (!COLOUR.matcher(v).matches()) {
                    in.error("background needs colour as #rrggbb");
                    return null;
                }
                return new Background(v);
            }
        };

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

        public static final OperationType<Encode> TYPE = new OperationType<>("encode", Encode.class,
                List.of("format", "quality", "progressive", "compression", "lossless", "speed")) {
            @Override
            public Encode parse(OperationInput in) {
                if (!in.last()) in.error("encode must be the last operation of a variant");
                in.unknownMembers();
                var op = in.node();
                String format = op.has("format") ? op.get("format").asText().toLowerCase(Locale.ROOT) : "";
                if (format.equals("jpg")) format = "jpeg";
                if (!JobSpec.OUTPUT_FORMATS.contains(format) && !format.equals(JobSpec.AUTO)) {
                    in.error("format must be one of " + String.join(", ", com.fairpix.core.image.ImageFormat.WRITABLE_IDS) + ", " + JobSpec.AUTO);
                }
                int quality = JobSpec.DEFAULT_QUALITY;
                if (op.has("quality")) {
                    var q = op.get("quality");
                    if (!q.isInt() || q.asInt() < 1 || q.asInt() > 100) in.error("quality must be an integer 1–100");
                    else quality = q.asInt();
                }
                boolean progressive = in.bool("progressive");
                if (progressive && !format.equals("jpeg")) in.error("progressive applies only to jpeg");
                Integer compression = in.integer("compression", 0, 9, DEFAULT_PNG_COMPRESSION);
                if (op.has("compression") && !format.equals("png")) in.error("compression applies only to png");
                boolean lossless = in.bool("lossless");
                if (lossless && !format.equals("webp")) in.error("lossless applies only to webp");
                Integer speed = in.integer("speed", 1, 9, DEFAULT_AVIF_SPEED);
                if (op.has("speed") && !format.equals("avif")) in.error("speed applies only to avif");
                return new Encode(format, quality, progressive, compression == null ? DEFAULT_PNG_COMPRESSION : compression, lossless,
                        speed == null ? DEFAULT_AVIF_SPEED : speed);
            }
        };

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
