package com.fairpix.core.job;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One operation's JSON object as its {@link OperationType#parse} reads it: the members, where it
 * sits in the spec (for messages), the tenant and limits, and the list every problem is added to
 * (a spec's 400 names all of them at once, so a parser reports and carries on rather than throws).
 * The readers return null for a member that is present but wrong, after reporting it.
 */
public final class OperationInput {
    private final OperationType<?> type;
    private final JsonNode node;
    private final String at;
    private final String tenant;
    private final SpecLimits limits;
    private final List<String> errors;
    private final boolean last;

    /**
     * @param at     where the operation sits, e.g. {@code variants.thumb[0]}
     * @param tenant the submitting tenant; null when not known (then tenant prefixes are only checked for shape)
     * @param last   the operation is its variant's last
     */
    OperationInput(OperationType<?> type, JsonNode node, String at, String tenant, SpecLimits limits, List<String> errors, boolean last) {
        this.type = type;
        this.node = node;
        this.at = at;
        this.tenant = tenant;
        this.limits = limits;
        this.errors = errors;
        this.last = last;
    }

    /** The operation's JSON object, {@code op} included. */
    public JsonNode node() {
        return node;
    }

    /** The submitting tenant, or null when the spec is parsed without one. */
    public String tenant() {
        return tenant;
    }

    public SpecLimits limits() {
        return limits;
    }

    /** Whether this operation is its variant's last. */
    public boolean last() {
        return last;
    }

    public boolean has(String member) {
        return node.has(member);
    }

    /** Reports a problem of this operation; the message is prefixed with where it sits. */
    public void error(String message) {
        errors.add(at + ": " + message);
    }

    /**
     * Reports every member that is neither {@code op}, one of the type's {@link OperationType#members()}
     * nor one of {@code aliases} (spellings accepted but not documented, e.g. {@code color}).
     */
    public void unknownMembers(String... aliases) {
        Set<String> known = new HashSet<>(type.members());
        known.add("op");
        known.addAll(List.of(aliases));
        node.fieldNames().forEachRemaining(f -> {
            if (!known.contains(f)) error("unknown member '" + f + "'");
        });
    }

    /** A boolean member; false when absent or null. */
    public boolean bool(String member) {
        if (!node.has(member) || node.get(member).isNull()) return false;
        if (!node.get(member).isBoolean()) {
            error(member + " must be true or false");
            return false;
        }
        return node.get(member).asBoolean();
    }

    /** An integer member in {@code [min, max]}; {@code dflt} when absent, null when wrong. */
    public Integer integer(String member, int min, int max, Integer dflt) {
        if (!node.has(member)) return dflt;
        JsonNode v = node.get(member);
        if (!v.isInt() || v.asInt() < min || v.asInt() > max) {
            error(member + " must be an integer " + min + "–" + max);
            return null;
        }
        return v.asInt();
    }

    /** A number member in {@code [min, max]}; {@code dflt} when absent, null when wrong (NaN included). */
    public Double number(String member, double min, double max, Double dflt) {
        if (!node.has(member)) return dflt;
        JsonNode v = node.get(member);
        if (!v.isNumber() || !(v.asDouble() >= min && v.asDouble() <= max)) {
            error(member + " must be a number " + fmt(min) + "–" + fmt(max));
            return null;
        }
        return v.asDouble();
    }

    /** A side in pixels, 1 to the smaller of {@link JobSpec#MAX_SIDE} and the limits' output side; null when absent or wrong. */
    public Integer side(String member) {
        if (!node.has(member) || node.get(member).isNull()) return null;
        JsonNode v = node.get(member);
        int max = Math.min(JobSpec.MAX_SIDE, limits.maxOutputSide());
        if (!v.isInt() || v.asInt() < 1 || v.asInt() > max) {
            error(member + " must be an integer 1–" + max + " (pixels)");
            return null;
        }
        return v.asInt();
    }

    /** Reports a {@code w × h} box (pixels) over the limits' output pixels; nothing when either side is null. */
    public void boxPixels(Integer w, Integer h, String what) {
        if (w == null || h == null) return;
        long px = (long) w * h;
        if (px > limits.maxOutputPixels()) {
            error(what + " " + w + "x" + h + " = " + px + " pixels; at most " + limits.maxOutputPixels() + " pixels per image");
        }
    }

    /** The {@code gravity} member; centre when absent, null when unknown. */
    public Operation.Gravity gravity() {
        if (!node.has("gravity")) return Operation.Gravity.CENTRE;
        Operation.Gravity g = Operation.Gravity.parse(node.get("gravity").asText());
        if (g == null) error("gravity must be one of centre, north, northeast, east, southeast, south, southwest, west, northwest, smart");
        return g;
    }

    /** A text member lower-cased, or "" when absent or null. */
    public String lowerText(String member) {
        return node.hasNonNull(member) ? node.get(member).asText().toLowerCase(Locale.ROOT) : "";
    }

    /** {@code 1} for whole numbers, else Java's own rendering: how ranges read in messages. */
    public static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
