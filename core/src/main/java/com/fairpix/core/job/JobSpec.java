package com.fairpix.core.job;

import com.fairpix.core.config.Setting;
import com.fairpix.core.error.Rejected;
import com.fairpix.core.json.Json;
import com.fairpix.core.pool.Pool;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What to make of one upload: named variants, each a list of operations on one decoded source and
 * ending in exactly one {@link Operation.Encode} (added as JPEG q80 when absent).
 *
 * <p>Example: {@code {"variants":{"thumb":[{"op":"resize","width":256,"height":256,"fit":"cover"},
 * {"op":"encode","format":"webp","quality":80}]}}}
 *
 * @param pool       cpu or gpu; null means the tenant's default
 * @param webhookUrl where this job's completion notification goes instead of the tenant's
 *                   {@code webhookUrl}; null for the tenant's. Checked by the SSRF guard at submission.
 */
public record JobSpec(Map<String, List<Operation>> variants, String pool, String webhookUrl) {
    public JobSpec(Map<String, List<Operation>> variants, String pool) {
        this(variants, pool, null);
    }

    public static final int MAX_SIDE = 16_384;
    public static final int DEFAULT_QUALITY = 80;
    private static final Pattern VARIANT_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");
    /** Output formats an encode step may name: the writable {@link com.fairpix.core.image.ImageFormat}s. */
    public static final Set<String> OUTPUT_FORMATS = Set.copyOf(com.fairpix.core.image.ImageFormat.WRITABLE_IDS);
    /**
     * The encode format that the ingest resolves at submission from the request's {@code Accept}
     * header ({@link #resolveAuto}); a job never reaches a worker with it.
     */
    public static final String AUTO = "auto";
    private static final Pattern COLOUR = Pattern.compile("#[0-9a-f]{6}");
    private static final List<String> OPS = List.of("resize", "crop", "rotate", "flip", "flop", "blur", "sharpen",
            "grayscale", "watermark", "background", "encode");

    /**
     * This spec with every {@code auto} encode replaced by the best format the client accepts:
     * AVIF when {@code accept} lists {@code image/avif}, else WebP when it lists {@code image/webp}
     * (either with q &gt; 0; RFC 9110 §12.5.1), else PNG when the source declares transparency, else
     * JPEG. Wildcards ({@code image/*}, {@code *}{@code /*}) choose nothing: every client takes JPEG.
     * The quality is kept; AVIF gets its default speed.
     *
     * @param accept      the request's Accept header, or null
     * @param sourceAlpha the source's header declares transparency
     */
    public JobSpec resolveAuto(String accept, boolean sourceAlpha) {
        boolean any = variants.values().stream().anyMatch(ops -> encodeOf(ops).format().equals(AUTO));
        if (!any) return this;
        java.util.Set<String> accepted = new java.util.HashSet<>();
        if (accept != null) {
            for (String part : accept.split(",")) {
                String[] f = part.trim().split(";");
                double q = 1;
                for (int i = 1; i < f.length; i++) {
                    String p = f[i].trim();
                    if (p.startsWith("q=")) {
                        try {
                            q = Double.parseDouble(p.substring(2));
                        } catch (NumberFormatException e) {
                            q = 0;
                        }
                    }
                }
                if (q > 0) accepted.add(f[0].trim().toLowerCase(Locale.ROOT));
            }
        }
        String chosen = accepted.contains("image/avif") ? "avif" : accepted.contains("image/webp") ? "webp" : sourceAlpha ? "png" : "jpeg";
        Map<String, List<Operation>> out = new LinkedHashMap<>();
        variants.forEach((name, ops) -> {
            Operation.Encode e = encodeOf(ops);
            if (!e.format().equals(AUTO)) {
                out.put(name, ops);
                return;
            }
            List<Operation> copy = new ArrayList<>(ops.subList(0, ops.size() - 1));
            copy.add(new Operation.Encode(chosen, e.quality()));
            out.put(name, List.copyOf(copy));
        });
        return new JobSpec(out, pool, webhookUrl);
    }

    /** The final encode step of a variant. */
    public static Operation.Encode encodeOf(List<Operation> ops) {
        return (Operation.Encode) ops.get(ops.size() - 1);
    }

    /**
     * Parses and validates a spec without a tenant: watermark keys are only checked for shape.
     *
     * @throws Rejected invalid, {@code invalid-spec}, with an {@code errors} list naming each problem
     */
    public static JobSpec parse(String json) {
        return parse(json, null);
    }

    /**
     * Parses and validates a spec, collecting every problem.
     *
     * @param tenant the submitting tenant; watermark keys must lie under its prefix
     *               ({@code tenants/{tenant}/}); null skips that check
     * @throws Rejected invalid, {@code invalid-spec}, with an {@code errors} list naming each problem
     */
    public static JobSpec parse(String json, String tenant) {
        return parse(json, tenant, SpecLimits.DEFAULTS);
    }

    /**
     * Parses and validates a spec against {@code limits}, collecting every problem.
     *
     * @param tenant the submitting tenant; watermark keys must lie under its prefix; null skips that check
     * @param limits sizes, counts and ranges allowed (see {@link SpecLimits}); checks that need the
     *               source's size are {@link #outputProblems}
     * @throws Rejected too large, {@code spec-too-large}, over {@code limits.maxSpecBytes()}; invalid,
     *                    {@code invalid-spec} with an {@code errors} list naming each problem
     */
    public static JobSpec parse(String json, String tenant, SpecLimits limits) {
        if (json != null && json.length() > limits.maxSpecBytes() / 4 && utf8Length(json) > limits.maxSpecBytes()) {
            throw tooLarge(utf8Length(json), limits.maxSpecBytes());
        }
        if (json == null || json.isBlank()) {
            throw invalid(List.of("spec is missing: send a 'spec' part (multipart) or the 'spec' query parameter"));
        }
        JsonNode root;
        try {
            // Trailing tokens would otherwise be ignored: "{...} junk" or "{...}{...}" is not one JSON value.
            root = Json.mapper().reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(json);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            // Jackson's message names its own source settings ("[Source: REDACTED (`StreamReadFeature...` disabled)"):
            // keep what is wrong and where, in the client's terms.
            String what = e.getOriginalMessage().replaceAll("\\s*\\(start marker at \\[Source:[^\\]]*\\]\\)", "");
            var at = e.getLocation();
            throw invalid(List.of("spec is not valid JSON: " + what + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")")));
        }
        List<String> errors = new ArrayList<>();
        if (root == null || !root.isObject()) throw invalid(List.of("spec must be a JSON object"));
        String pool = null;
        if (root.has("pool")) {
            pool = root.get("pool").asText();
            if (Pool.find(pool).isEmpty()) errors.add(Pool.MUST_BE);
        }
        String webhookUrl = null;
        if (root.has("webhookUrl") && !root.get("webhookUrl").isNull()) {
            if (!root.get("webhookUrl").isTextual() || root.get("webhookUrl").asText().isBlank()) errors.add("webhookUrl must be a URL string");
            else webhookUrl = root.get("webhookUrl").asText();
        }
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!f.equals("variants") && !f.equals("pool") && !f.equals("webhookUrl")) errors.add("unknown member '" + f + "'");
        }
        JsonNode variantsNode = root.get("variants");
        Map<String, List<Operation>> variants = new LinkedHashMap<>();
        if (variantsNode == null || !variantsNode.isObject() || variantsNode.isEmpty()) {
            errors.add("variants must be a non-empty object of name → list of operations");
        } else {
            int maxVariants = limits.maxVariants();
            if (variantsNode.size() > maxVariants) errors.add("at most " + maxVariants + " variants, got " + variantsNode.size() + " (" + Setting.SPEC_MAX_VARIANTS.key() + ")");
            for (Iterator<Map.Entry<String, JsonNode>> it = variantsNode.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String name = e.getKey();
                if (!VARIANT_NAME.matcher(name).matches()) errors.add("variant name '" + name + "' must match " + VARIANT_NAME.pattern());
                variants.put(name, parseOperations("variants." + name, e.getValue(), tenant, limits, errors));
            }
        }
        if (!errors.isEmpty()) throw invalid(errors);
        return new JobSpec(variants, pool, webhookUrl);
    }

    private static List<Operation> parseOperations(String path, JsonNode node, String tenant, SpecLimits limits, List<String> errors) {
        List<Operation> ops = new ArrayList<>();
        if (node == null || !node.isArray() || node.isEmpty()) {
            errors.add(path + " must be a non-empty list of operations");
            return ops;
        }
        boolean endsInEncode = node.get(node.size() - 1).path("op").asText().equals("encode");
        int count = node.size() + (endsInEncode ? 0 : 1);
        if (count > limits.maxOperations()) {
            errors.add(path + ": at most " + limits.maxOperations() + " operations per variant (the encode step included), got " + count
                    + " (" + Setting.SPEC_MAX_OPERATIONS.key() + ")");
            return ops;
        }
        for (int i = 0; i < node.size(); i++) {
            String at = path + "[" + i + "]";
            JsonNode op = node.get(i);
            if (!op.isObject() || !op.hasNonNull("op")) {
                errors.add(at + " must be an object with an 'op' member");
                continue;
            }
            String name = op.get("op").asText();
            Operation parsed = switch (name) {
                case "resize" -> resize(op, at, limits, errors);
                case "crop" -> {
                    unknownMembers(op, at, Set.of("op", "left", "top", "width", "height"), errors);
                    Integer left = integer(op, "left", 0, MAX_SIDE - 1, 0, at, errors);
                    Integer top = integer(op, "top", 0, MAX_SIDE - 1, 0, at, errors);
                    Integer w = side(op, "width", limits, at, errors);
                    Integer h = side(op, "height", limits, at, errors);
                    if (w == null || h == null) {
                        errors.add(at + ": crop needs width and height (pixels)");
                        yield null;
                    }
                    boxPixels(w, h, limits, at, "crop", errors);
                    yield left == null || top == null ? null : new Operation.Crop(left, top, w, h);
                }
                case "rotate" -> {
                    unknownMembers(op, at, Set.of("op", "angle"), errors);
                    JsonNode a = op.get("angle");
                    if (a == null || !a.isInt() || !Set.of(90, 180, 270).contains(a.asInt())) {
                        errors.add(at + ": rotate needs angle 90, 180 or 270 (degrees clockwise)");
                        yield null;
                    }
                    yield new Operation.Rotate(a.asInt());
                }
                case "flip" -> {
                    unknownMembers(op, at, Set.of("op"), errors);
                    yield new Operation.Flip();
                }
                case "flop" -> {
                    unknownMembers(op, at, Set.of("op"), errors);
                    yield new Operation.Flop();
                }
                case "grayscale", "greyscale" -> {
                    unknownMembers(op, at, Set.of("op"), errors);
                    yield new Operation.Grayscale();
                }
                case "blur" -> {
                    unknownMembers(op, at, Set.of("op", "sigma"), errors);
                    Double sigma = number(op, "sigma", 0.3, limits.maxBlurSigma(), null, at, errors);
                    if (sigma == null && !op.has("sigma")) errors.add(at + ": blur needs sigma (pixels, 0.3–" + fmt(limits.maxBlurSigma()) + ")");
                    yield sigma == null ? null : new Operation.Blur(sigma);
                }
                case "sharpen" -> {
                    unknownMembers(op, at, Set.of("op", "sigma", "amount"), errors);
                    Double sigma = number(op, "sigma", 0.3, 10, 1.0, at, errors);
                    Double amount = number(op, "amount", 0, 10, 1.0, at, errors);
                    yield sigma == null || amount == null ? null : new Operation.Sharpen(sigma, amount);
                }
                case "watermark" -> watermark(op, at, tenant, limits, errors);
                case "background" -> {
                    unknownMembers(op, at, Set.of("op", "colour", "color"), errors);
                    JsonNode c = op.has("colour") ? op.get("colour") : op.get("color");
                    String v = c == null ? "" : c.asText().toLowerCase(Locale.ROOT);
                    if (!COLOUR.matcher(v).matches()) {
                        errors.add(at + ": background needs colour as #rrggbb");
                        yield null;
                    }
                    yield new Operation.Background(v);
                }
                case "encode" -> {
                    if (i != node.size() - 1) errors.add(at + ": encode must be the last operation of a variant");
                    yield encode(op, at, errors);
                }
                default -> {
                    errors.add(at + ": unknown op '" + name + "' (known: " + String.join(", ", OPS) + ")");
                    yield null;
                }
            };
            if (parsed != null) ops.add(parsed);
        }
        if (!ops.isEmpty() && !(ops.get(ops.size() - 1) instanceof Operation.Encode)) {
            ops.add(new Operation.Encode("jpeg", DEFAULT_QUALITY));
        }
        return ops;
    }

    private static Operation.Resize resize(JsonNode op, String at, SpecLimits limits, List<String> errors) {
        Integer w = side(op, "width", limits, at, errors);
        Integer h = side(op, "height", limits, at, errors);
        if (w == null && h == null && !op.has("width") && !op.has("height")) errors.add(at + ": resize needs width or height (pixels)");
        Operation.Fit fit = Operation.Fit.CONTAIN;
        if (op.has("fit")) {
            try {
                fit = Operation.Fit.valueOf(op.get("fit").asText().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException ex) {
                errors.add(at + ": fit must be one of contain, cover, fill, inside, outside");
            }
        }
        // A side given but refused (over the limits) was already reported: only a side not given is missing.
        if ((fit == Operation.Fit.COVER || fit == Operation.Fit.FILL) && (!op.has("width") || !op.has("height"))) {
            errors.add(at + ": fit " + fit.id() + " needs both width and height");
        } else if ((fit == Operation.Fit.COVER || fit == Operation.Fit.FILL) && !bool(op, "withoutEnlargement", at, new ArrayList<>())) {
            // cover and fill make exactly the box (unless they may not enlarge): too many pixels whatever the source
            boxPixels(w, h, limits, at, "resize " + fit.id(), errors);
        }
        Operation.Gravity gravity = gravity(op, at, errors);
        if (op.has("gravity") && fit != Operation.Fit.COVER) errors.add(at + ": gravity applies only to fit cover");
        boolean noEnlarge = bool(op, "withoutEnlargement", at, errors);
        unknownMembers(op, at, Set.of("op", "width", "height", "fit", "withoutEnlargement", "gravity"), errors);
        return new Operation.Resize(w, h, fit, noEnlarge, gravity);
    }

    private static Operation.Watermark watermark(JsonNode op, String at, String tenant, SpecLimits limits, List<String> errors) {
        unknownMembers(op, at, Set.of("op", "key", "gravity", "opacity", "scale", "margin"), errors);
        String key = op.hasNonNull("key") ? op.get("key").asText() : "";
        String prefix = tenant == null ? "tenants/" : "tenants/" + tenant + "/";
        boolean ok = true;
        if (key.isEmpty()) {
            errors.add(at + ": watermark needs key, the S3 key of an image under " + prefix);
            ok = false;
        } else if (utf8Length(key) > limits.maxKeyLength()) {
            // S3 limits keys in UTF-8 bytes, so does the setting.
            errors.add(at + ": watermark key is " + utf8Length(key) + " bytes; at most " + limits.maxKeyLength() + " (" + Setting.SPEC_MAX_KEY_LENGTH.key() + ")");
            ok = false;
        } else if (key.chars().anyMatch(ch -> com.fairpix.core.log.LogSafe.isControl((char) ch))) {
            errors.add(at + ": watermark key must not contain control characters");
            ok = false;
        } else if (!key.startsWith(prefix) || key.contains("..") || key.contains("//") || key.contains("\\")) {
            // A tenant may only overlay its own objects; never another tenant's originals or results.
            errors.add(at + ": watermark key must lie under the tenant's own prefix " + prefix);
            ok = false;
        }
        Operation.Gravity gravity = op.has("gravity") ? gravity(op, at, errors) : Operation.Gravity.SOUTHEAST;
        Double opacity = number(op, "opacity", 0, 1, 0.5, at, errors);
        Double scale = number(op, "scale", 0.01, 1, 0.25, at, errors);
        Integer margin = integer(op, "margin", 0, 1000, 10, at, errors);
        if (!ok || gravity == null || opacity == null || scale == null || margin == null) return null;
        return new Operation.Watermark(key, gravity, opacity, scale, margin);
    }

    private static Operation.Encode encode(JsonNode op, String at, List<String> errors) {
        unknownMembers(op, at, Set.of("op", "format", "quality", "progressive", "compression", "lossless", "speed"), errors);
        String format = op.has("format") ? op.get("format").asText().toLowerCase(Locale.ROOT) : "";
        if (format.equals("jpg")) format = "jpeg";
        if (!OUTPUT_FORMATS.contains(format) && !format.equals(AUTO)) errors.add(at + ": format must be one of " + String.join(", ", com.fairpix.core.image.ImageFormat.WRITABLE_IDS) + ", " + AUTO);
        int quality = DEFAULT_QUALITY;
        if (op.has("quality")) {
            JsonNode q = op.get("quality");
            if (!q.isInt() || q.asInt() < 1 || q.asInt() > 100) errors.add(at + ": quality must be an integer 1–100");
            else quality = q.asInt();
        }
        boolean progressive = bool(op, "progressive", at, errors);
        if (progressive && !format.equals("jpeg")) errors.add(at + ": progressive applies only to jpeg");
        Integer compression = integer(op, "compression", 0, 9, Operation.Encode.DEFAULT_PNG_COMPRESSION, at, errors);
        if (op.has("compression") && !format.equals("png")) errors.add(at + ": compression applies only to png");
        boolean lossless = bool(op, "lossless", at, errors);
        if (lossless && !format.equals("webp")) errors.add(at + ": lossless applies only to webp");
        Integer speed = integer(op, "speed", 1, 9, Operation.Encode.DEFAULT_AVIF_SPEED, at, errors);
        if (op.has("speed") && !format.equals("avif")) errors.add(at + ": speed applies only to avif");
        return new Operation.Encode(format, quality, progressive, compression == null ? Operation.Encode.DEFAULT_PNG_COMPRESSION : compression, lossless,
                speed == null ? Operation.Encode.DEFAULT_AVIF_SPEED : speed);
    }

    private static Operation.Gravity gravity(JsonNode op, String at, List<String> errors) {
        if (!op.has("gravity")) return Operation.Gravity.CENTRE;
        Operation.Gravity g = Operation.Gravity.parse(op.get("gravity").asText());
        if (g == null) errors.add(at + ": gravity must be one of centre, north, northeast, east, southeast, south, southwest, west, northwest, smart");
        return g;
    }

    private static boolean bool(JsonNode op, String member, String at, List<String> errors) {
        if (!op.has(member) || op.get(member).isNull()) return false;
        if (!op.get(member).isBoolean()) {
            errors.add(at + ": " + member + " must be true or false");
            return false;
        }
        return op.get(member).asBoolean();
    }

    private static Integer integer(JsonNode op, String member, int min, int max, Integer dflt, String at, List<String> errors) {
        if (!op.has(member)) return dflt;
        JsonNode v = op.get(member);
        if (!v.isInt() || v.asInt() < min || v.asInt() > max) {
            errors.add(at + ": " + member + " must be an integer " + min + "–" + max);
            return null;
        }
        return v.asInt();
    }

    private static Double number(JsonNode op, String member, double min, double max, Double dflt, String at, List<String> errors) {
        if (!op.has(member)) return dflt;
        JsonNode v = op.get(member);
        if (!v.isNumber() || !(v.asDouble() >= min && v.asDouble() <= max)) {
            errors.add(at + ": " + member + " must be a number " + fmt(min) + "–" + fmt(max));
            return null;
        }
        return v.asDouble();
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    private static Integer side(JsonNode op, String member, SpecLimits limits, String at, List<String> errors) {
        if (!op.has(member) || op.get(member).isNull()) return null;
        JsonNode v = op.get(member);
        int max = Math.min(MAX_SIDE, limits.maxOutputSide());
        if (!v.isInt() || v.asInt() < 1 || v.asInt() > max) {
            errors.add(at + ": " + member + " must be an integer 1–" + max + " (pixels)");
            return null;
        }
        return v.asInt();
    }

    private static void boxPixels(Integer w, Integer h, SpecLimits limits, String at, String what, List<String> errors) {
        if (w == null || h == null) return;
        long px = (long) w * h;
        if (px > limits.maxOutputPixels()) {
            errors.add(at + ": " + what + " " + w + "x" + h + " = " + px + " pixels; at most " + limits.maxOutputPixels() + " pixels per image");
        }
    }

    /**
     * What the spec would make from a {@code width × height} source that is over {@code limits}:
     * one entry per variant whose output, or any image on its way, has more pixels than
     * {@code limits.maxOutputPixels()} or a side over {@code limits.maxOutputSide()}. Empty when it fits.
     */
    public List<String> outputProblems(int width, int height, SpecLimits limits) {
        List<String> problems = new ArrayList<>();
        OutputSize.of(this, width, height).forEach((name, e) -> {
            if (e.peakPixels() > limits.maxOutputPixels()) {
                problems.add("variants." + name + ": makes an image of " + e.peakPixels() + " pixels from this " + width + "x" + height
                        + " source; at most " + limits.maxOutputPixels() + " (the tenant's maxPixels or " + Setting.SPEC_MAX_OUTPUT_PIXELS.key() + ")");
            } else if (e.largestSide() > limits.maxOutputSide()) {
                problems.add("variants." + name + ": makes an image " + e.largestSide() + " pixels on a side from this " + width + "x" + height
                        + " source; at most " + limits.maxOutputSide() + " (" + Setting.SPEC_MAX_OUTPUT_SIDE.key() + ")");
            }
        });
        return problems;
    }

    private static int utf8Length(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) n++;
            else if (c < 0x800) n += 2;
            else if (Character.isHighSurrogate(c)) { n += 4; i++; }
            else n += 3;
        }
        return n;
    }

    /**
     * {@code spec-too-large}: the spec is over {@code spec.max-bytes}.
     *
     * @param bytes its size, or -1 when it was not read to its end
     */
    public static Rejected tooLarge(long bytes, int max) {
        return new Rejected(Rejected.Kind.TOO_LARGE, "spec-too-large", "Job spec too large",
                "The job spec is " + (bytes < 0 ? "over " + max : Long.toString(bytes)) + " bytes; at most " + max + " bytes are accepted (" + Setting.SPEC_MAX_BYTES.key() + ").")
                .with("limit", max)
                .stopReading(); // the rest of a streamed body is not wanted
    }

    private static void unknownMembers(JsonNode op, String at, Set<String> known, List<String> errors) {
        op.fieldNames().forEachRemaining(f -> {
            if (!known.contains(f)) errors.add(at + ": unknown member '" + f + "'");
        });
    }

    private static Rejected invalid(List<String> errors) {
        return Rejected.invalid("invalid-spec", "The job spec is invalid: " + String.join("; ", errors))
                .with("errors", errors);
    }

    /** Every watermark key the spec reads (to check against the tenant prefix and to prefetch). */
    public Set<String> watermarkKeys() {
        Set<String> keys = new java.util.LinkedHashSet<>();
        for (List<Operation> ops : variants.values()) {
            for (Operation op : ops) if (op instanceof Operation.Watermark w) keys.add(w.key());
        }
        return keys;
    }

    /** Number of operations over all variants (a cost input). */
    public int operationCount() {
        return variants.values().stream().mapToInt(List::size).sum();
    }
}
