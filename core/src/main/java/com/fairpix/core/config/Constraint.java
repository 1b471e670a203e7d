package com.fairpix.core.config;

import java.util.List;
import java.util.Optional;

/**
 * What one {@link Setting} accepts, declared beside its key, default and doc: any text, a number
 * of a type within bounds ({@link #integer()}, {@link #whole()}, {@link #number()}), or names from a
 * fixed list ({@link #oneOf}, {@link #listOf}). {@link FairpixConfig} checks every setting against
 * its constraint on each load; {@code fairpix config} prints {@link #describe()}.
 */
public sealed interface Constraint permits Constraint.Text, Constraint.Range, Constraint.Choice {

    /**
     * What is wrong with {@code value} as {@code setting}'s value, naming the setting's environment
     * variable; empty when it is accepted.
     */
    Optional<String> problem(Setting setting, String value);

    /** The accepted values in a few words for the settings table, e.g. {@code integer >= 1}; empty for any text. */
    String describe();

    /** Any text. */
    static Constraint text() {
        return Text.ANY;
    }

    /** A 32-bit integer, unbounded until {@link Range#atLeast} or {@link Range#between} bounds it. */
    static Range integer() {
        return Range.of(Type.INTEGER);
    }

    /** A 64-bit integer (bytes, milliseconds, seconds), unbounded until bounded. */
    static Range whole() {
        return Range.of(Type.WHOLE);
    }

    /** A decimal number (rates, factors, shares), unbounded until bounded; NaN fails every bound. */
    static Range number() {
        return Range.of(Type.NUMBER);
    }

    /** One of {@code values}, compared exactly after trimming. */
    static Choice oneOf(String... values) {
        return oneOf(List.of(values));
    }

    /** One of {@code values}, compared exactly after trimming. */
    static Choice oneOf(List<String> values) {
        return new Choice(values, false, false);
    }

    /** A comma-separated list of one or more of {@code values}; blank items are skipped. */
    static Choice listOf(List<String> values) {
        return new Choice(values, true, false);
    }

    /** How a number setting is read: {@link FairpixConfig#integer}, {@link FairpixConfig#longValue}, {@link FairpixConfig#decimal}. */
    enum Type {
        INTEGER("integer"), WHOLE("integer"), NUMBER("number");

        private final String word;

        Type(String word) {
            this.word = word;
        }

        /** @throws IllegalArgumentException naming the setting when {@code value} is not a number of this type */
        Number parse(Setting setting, String value) {
            try {
                return switch (this) {
                    case INTEGER -> Integer.parseInt(value.trim());
                    case WHOLE -> Long.parseLong(value.trim());
                    case NUMBER -> Double.parseDouble(value.trim());
                };
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(setting.env() + " (" + setting.key() + ") must be " + (this == NUMBER ? "a " : "an ") + word
                        + ", got '" + value + "'");
            }
        }
    }

    /** Any text: no check. */
    enum Text implements Constraint {
        ANY;

        @Override
        public Optional<String> problem(Setting setting, String value) {
            return Optional.empty();
        }

        @Override
        public String describe() {
            return "";
        }
    }

    /**
     * A number of {@code type} within bounds; a bound is NaN when absent.
     *
     * @param minOpen  the lower bound itself is refused ({@code > min})
     * @param maxOpen  the upper bound itself is refused ({@code < max})
     * @param finiteOnly infinities are refused too
     * @param word     a word accepted instead of a number (case-insensitive), e.g. {@code measured}; null for none
     */
    record Range(Type type, double min, boolean minOpen, double max, boolean maxOpen, boolean finiteOnly, String word) implements Constraint {
        static Range of(Type type) {
            return new Range(type, Double.NaN, false, Double.NaN, false, false, null);
        }

        /** At least {@code min}. */
        public Range atLeast(double min) {
            return new Range(type, min, false, max, maxOpen, finiteOnly, word);
        }

        /** More than {@code min}. */
        public Range above(double min) {
            return new Range(type, min, true, max, maxOpen, finiteOnly, word);
        }

        /** At most {@code max}. */
        public Range atMost(double max) {
            return new Range(type, min, minOpen, max, false, finiteOnly, word);
        }

        /** From {@code min} to {@code max}, both included. */
        public Range between(double min, double max) {
            return atLeast(min).atMost(max);
        }

        /** Refuses the infinities, which the bounds alone let through. */
        public Range finite() {
            return new Range(type, min, minOpen, max, maxOpen, true, word);
        }

        /** Also accepts {@code word} (case-insensitive) instead of a number. */
        public Range or(String word) {
            return new Range(type, min, minOpen, max, maxOpen, finiteOnly, word);
        }

        @Override
        public Optional<String> problem(Setting setting, String value) {
            if (word != null && value.trim().equalsIgnoreCase(word)) return Optional.empty();
            double v;
            try {
                v = type.parse(setting, value).doubleValue();
            } catch (IllegalArgumentException e) {
                return Optional.of(e.getMessage());
            }
            return problem(setting.env(), v);
        }

        /**
         * What is wrong with {@code value} as {@code name}'s value, e.g. {@code minReplicas must be >= 0};
         * empty when it is within bounds. For values that arrive other than as a setting (an API body).
         */
        public Optional<String> problem(String name, double value) {
            boolean ok = (Double.isNaN(min) || (minOpen ? value > min : value >= min))
                    && (Double.isNaN(max) || (maxOpen ? value < max : value <= max))
                    && (!finiteOnly || Double.isFinite(value));
            return ok ? Optional.empty() : Optional.of(name + " must be " + bounds());
        }

        /** As a message ends: {@code >= 1}, {@code 0..19}, {@code in (0, 100]}, {@code a finite number > 0}, {@code measured or 0..1000000}. */
        private String bounds() {
            return (word == null ? "" : word + " or ") + (finiteOnly ? "a finite number " : "") + range();
        }

        /** {@code integer >= 1}, {@code number in (0, 1]}, {@code finite number > 0}, {@code measured or number 0..1000000}. */
        @Override
        public String describe() {
            return ((word == null ? "" : word + " or ") + (finiteOnly ? "finite " : "") + type.word + " " + range()).strip();
        }

        /** {@code >= 1}, {@code 0..19}, {@code in (0, 100]}; empty when unbounded. */
        private String range() {
            if (Double.isNaN(min) && Double.isNaN(max)) return "";
            if (Double.isNaN(max)) return (minOpen ? "> " : ">= ") + format(min);
            if (Double.isNaN(min)) return (maxOpen ? "< " : "<= ") + format(max);
            if (!minOpen && !maxOpen) return format(min) + ".." + format(max);
            return "in " + (minOpen ? "(" : "[") + format(min) + ", " + format(max) + (maxOpen ? ")" : "]");
        }

        private static String format(double v) {
            return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
        }
    }

    /**
     * Names from a fixed list.
     *
     * @param list         a comma-separated list of them rather than one
     * @param emptyAllowed a list may name none
     */
    record Choice(List<String> values, boolean list, boolean emptyAllowed) implements Constraint {
        public Choice {
            values = List.copyOf(values);
        }

        /** A list that may also be empty. */
        public Choice orEmpty() {
            return new Choice(values, list, true);
        }

        @Override
        public Optional<String> problem(Setting setting, String value) {
            if (!list) {
                return values.contains(value.trim()) ? Optional.empty()
                        : Optional.of(setting.env() + " must be " + alternatives() + ", got " + value);
            }
            List<String> items = FairpixConfig.items(value);
            for (String item : items) {
                if (!values.contains(item)) return Optional.of(setting.env() + " must list " + alternatives() + ", comma-separated, got " + item);
            }
            return items.isEmpty() && !emptyAllowed ? Optional.of(setting.env() + " must list at least one of " + alternatives()) : Optional.empty();
        }

        /** {@code fair or fifo}, {@code local, kubernetes or dry-run}. */
        private String alternatives() {
            if (values.size() == 1) return values.getFirst();
            return String.join(", ", values.subList(0, values.size() - 1)) + " or " + values.getLast();
        }

        @Override
        public String describe() {
            String names = String.join("|", values);
            return list ? "list of " + names + (emptyAllowed ? ", or empty" : "") : names;
        }
    }
}
