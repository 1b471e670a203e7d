package com.fairpix.core.job;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.DatabindContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.jsontype.impl.TypeIdResolverBase;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every operation a spec may name, in the order the docs list them: the one place an operation is
 * registered. Adding one is a line here for its {@link OperationType} (docs/pipeline.md, "Adding an
 * operation"); parsing, JSON (de)serialisation, geometry, shrink-on-load, the memory reservation,
 * the worker's pipeline and the OpenAPI check follow from it.
 */
public final class Operations {
    private Operations() {}

    /** The registered types; {@code encode}, the terminal step of every variant, last. */
    public static final List<OperationType<?>> ALL = List.of(
            Operation.Resize.TYPE,
            Operation.Crop.TYPE,
            Operation.Rotate.TYPE,
            Operation.Flip.TYPE,
            Operation.Flop.TYPE,
            Operation.Blur.TYPE,
            Operation.Sharpen.TYPE,
            Operation.Grayscale.TYPE,
            Operation.Watermark.TYPE,
            Operation.Background.TYPE,
            Modulate.TYPE,
            Operation.Encode.TYPE);

    private static final Map<String, OperationType<?>> BY_NAME = new HashMap<>();
    private static final Map<Class<?>, OperationType<?>> BY_CLASS = new HashMap<>();

    static {
        for (OperationType<?> t : ALL) {
            for (String n : concat(t.name(), t.aliases())) {
                if (BY_NAME.put(n, t) != null) throw new IllegalStateException("two operations named " + n);
            }
            if (BY_CLASS.put(t.type(), t) != null) throw new IllegalStateException("two operation types for " + t.type());
        }
    }

    private static List<String> concat(String first, List<String> rest) {
        List<String> all = new java.util.ArrayList<>(rest);
        all.add(0, first);
        return all;
    }

    /** The type an {@code op} value (or alias) names; null when none. */
    public static OperationType<?> named(String op) {
        return BY_NAME.get(op);
    }

    /**
     * The type of {@code op}.
     *
     * @throws IllegalStateException when its class was never registered in {@link #ALL} (a programming error)
     */
    public static OperationType<?> of(Operation op) {
        OperationType<?> t = BY_CLASS.get(op.getClass());
        if (t == null) throw new IllegalStateException(op.getClass().getName() + " is not registered in Operations.ALL");
        return t;
    }

    /** The {@code op} values, in {@link #ALL}'s order (aliases left out). */
    public static List<String> names() {
        return ALL.stream().map(OperationType::name).toList();
    }

    /**
     * Jackson's view of the registry: an operation is written with its type's name in the {@code op}
     * member and read back by it, so a new operation needs no annotation of its own.
     */
    public static final class TypeIds extends TypeIdResolverBase {
        @Override
        public String idFromValue(Object value) {
            return of((Operation) value).name();
        }

        @Override
        public String idFromValueAndType(Object value, Class<?> suggestedType) {
            return idFromValue(value);
        }

        @Override
        public JavaType typeFromId(DatabindContext context, String id) {
            OperationType<?> t = BY_NAME.get(id);
            // null: Jackson reports an unknown type id, as it did for an unlisted subtype.
            return t == null || !t.name().equals(id) ? null : context.constructType(t.type());
        }

        @Override
        public String getDescForKnownTypeIds() {
            return String.join(", ", names());
        }

        @Override
        public JsonTypeInfo.Id getMechanism() {
            return JsonTypeInfo.Id.CUSTOM;
        }
    }
}
