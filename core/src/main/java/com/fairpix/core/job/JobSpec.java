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
            OperationType<?> type = Operations.named(name);
            if (type == null) {
                errors.add(at + ": unknown op '" + name + "' (known: " + String.join(", ", Operations.names()) + ")");
                continue;
            }
            Operation parsed = type.parse(new OperationInput(type, op, at, tenant, limits, errors, i == node.size() - 1));
            if (parsed != null) ops.add(parsed);
        }
        if (!ops.isEmpty() && !(ops.get(ops.size() - 1) instanceof Operation.Encode)) {
            ops.add(new Operation.Encode("jpeg", DEFAULT_QUALITY));
        }
        return ops;
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

    /** Length of {@code s} in UTF-8, bytes (S3 keys and the spec limit count bytes). */
    static int utf8Length(String s) {
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
