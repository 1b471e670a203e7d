package com.fairpix.core.job;

import com.fairpix.core.error.ApiProblem;
import com.fairpix.core.json.Json;
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

    public static final int MAX_VARIANTS = 16;
    public static final int MAX_SIDE = 16_384;
    public static final int DEFAULT_QUALITY = 80;
    private static final Pattern VARIANT_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");
    private static final Set<String> FORMATS = Set.of("jpeg", "png", "webp");

    /** The final encode step of a variant. */
    public static Operation.Encode encodeOf(List<Operation> ops) {
        return (Operation.Encode) ops.get(ops.size() - 1);
    }

    /**
     * Parses and validates a spec, collecting every problem.
     *
     * @throws ApiProblem 400 {@code invalid-spec} with an {@code errors} list naming each problem
     */
    public static JobSpec parse(String json) {
        if (json == null || json.isBlank()) {
            throw invalid(List.of("spec is missing: send a 'spec' part (multipart) or the 'spec' query parameter"));
        }
        JsonNode root;
        try {
            // Trailing tokens would otherwise be ignored: "{...} junk" or "{...}{...}" is not one JSON value.
            root = Json.mapper().reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(json);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw invalid(List.of("spec is not valid JSON: " + e.getOriginalMessage()));
        }
        List<String> errors = new ArrayList<>();
        if (root == null || !root.isObject()) throw invalid(List.of("spec must be a JSON object"));
        String pool = null;
        if (root.has("pool")) {
            pool = root.get("pool").asText();
            if (!pool.equals("cpu") && !pool.equals("gpu")) errors.add("pool must be cpu or gpu");
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
            if (variantsNode.size() > MAX_VARIANTS) errors.add("at most " + MAX_VARIANTS + " variants, got " + variantsNode.size());
            for (Iterator<Map.Entry<String, JsonNode>> it = variantsNode.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String name = e.getKey();
                if (!VARIANT_NAME.matcher(name).matches()) errors.add("variant name '" + name + "' must match " + VARIANT_NAME.pattern());
                variants.put(name, parseOperations("variants." + name, e.getValue(), errors));
            }
        }
        if (!errors.isEmpty()) throw invalid(errors);
        return new JobSpec(variants, pool, webhookUrl);
    }

    private static List<Operation> parseOperations(String path, JsonNode node, List<String> errors) {
        List<Operation> ops = new ArrayList<>();
        if (node == null || !node.isArray() || node.isEmpty()) {
            errors.add(path + " must be a non-empty list of operations");
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
            switch (name) {
                case "resize" -> {
                    Integer w = side(op, "width", at, errors);
                    Integer h = side(op, "height", at, errors);
                    if (w == null && h == null) errors.add(at + ": resize needs width or height (pixels)");
                    Operation.Fit fit = Operation.Fit.CONTAIN;
                    if (op.has("fit")) {
                        try {
                            fit = Operation.Fit.valueOf(op.get("fit").asText().toUpperCase(Locale.ROOT));
                        } catch (IllegalArgumentException ex) {
                            errors.add(at + ": fit must be one of contain, cover, fill");
                        }
                    }
                    if (fit != Operation.Fit.CONTAIN && (w == null || h == null)) errors.add(at + ": fit " + fit.name().toLowerCase(Locale.ROOT) + " needs both width and height");
                    JsonNode noEnlargeNode = op.get("withoutEnlargement");
                    if (noEnlargeNode != null && !noEnlargeNode.isNull() && !noEnlargeNode.isBoolean()) errors.add(at + ": withoutEnlargement must be true or false");
                    boolean noEnlarge = noEnlargeNode != null && noEnlargeNode.asBoolean();
                    unknownMembers(op, at, Set.of("op", "width", "height", "fit", "withoutEnlargement"), errors);
                    ops.add(new Operation.Resize(w, h, fit, noEnlarge));
                }
                case "encode" -> {
                    String format = op.has("format") ? op.get("format").asText().toLowerCase(Locale.ROOT) : "";
                    if (format.equals("jpg")) format = "jpeg";
                    if (!FORMATS.contains(format)) errors.add(at + ": format must be one of jpeg, png, webp");
                    int quality = DEFAULT_QUALITY;
                    if (op.has("quality")) {
                        JsonNode q = op.get("quality");
                        if (!q.isInt() || q.asInt() < 1 || q.asInt() > 100) errors.add(at + ": quality must be an integer 1–100");
                        else quality = q.asInt();
                    }
                    if (i != node.size() - 1) errors.add(at + ": encode must be the last operation of a variant");
                    unknownMembers(op, at, Set.of("op", "format", "quality"), errors);
                    ops.add(new Operation.Encode(format, quality));
                }
                default -> errors.add(at + ": unknown op '" + name + "' (known: resize, encode)");
            }
        }
        if (!ops.isEmpty() && !(ops.get(ops.size() - 1) instanceof Operation.Encode)) {
            ops.add(new Operation.Encode("jpeg", DEFAULT_QUALITY));
        }
        return ops;
    }

    private static Integer side(JsonNode op, String member, String at, List<String> errors) {
        if (!op.has(member) || op.get(member).isNull()) return null;
        JsonNode v = op.get(member);
        if (!v.isInt() || v.asInt() < 1 || v.asInt() > MAX_SIDE) {
            errors.add(at + ": " + member + " must be an integer 1–" + MAX_SIDE + " (pixels)");
            return null;
        }
        return v.asInt();
    }

    private static void unknownMembers(JsonNode op, String at, Set<String> known, List<String> errors) {
        op.fieldNames().forEachRemaining(f -> {
            if (!known.contains(f)) errors.add(at + ": unknown member '" + f + "'");
        });
    }

    private static ApiProblem invalid(List<String> errors) {
        return ApiProblem.badRequest("invalid-spec", "The job spec is invalid: " + String.join("; ", errors))
                .with("errors", errors);
    }

    /** Number of operations over all variants (a cost input). */
    public int operationCount() {
        return variants.values().stream().mapToInt(List::size).sum();
    }
}
