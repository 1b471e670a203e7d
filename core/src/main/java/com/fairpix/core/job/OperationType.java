package com.fairpix.core.job;

import java.util.List;
import java.util.Objects;

/**
 * Everything fairpix knows about one kind of {@link Operation} before a pixel is decoded, in one
 * place: its name in the spec, its parameters, how it is parsed and validated, what it does to the
 * image's size, whether it works in source pixels, and what native memory it adds. Each operation
 * record holds its type as a static {@code TYPE} beside its fields; {@link Operations} lists them,
 * and spec parsing ({@link JobSpec#parse}), output sizes ({@link OutputSize}), the JPEG
 * shrink-on-load rule ({@link JobCost#jpegReduction}), the worker's memory reservation and its
 * pipeline all iterate over that list instead of naming operations. The pixel work itself (on
 * OpenCV Mats) is the worker's: a step registered for {@link #type()} in {@code worker/process}.
 *
 * <p>The defaults fit a step that changes colours only: same size, works on whatever pixels it is
 * given, no memory beyond the per-pixel model of {@code NativeMemoryBudget}.
 *
 * @param <T> the operation record
 */
public abstract class OperationType<T extends Operation> {
    private final String name;
    private final Class<T> type;
    private final List<String> members;
    private final List<String> aliases;

    /**
     * @param name    the {@code op} value, lower case (e.g. {@code resize})
     * @param type    the record
     * @param members its JSON members besides {@code op}, as documented in the OpenAPI document
     * @param aliases other {@code op} values accepted for it (e.g. {@code greyscale}); not documented
     */
    protected OperationType(String name, Class<T> type, List<String> members, List<String> aliases) {
        this.name = Objects.requireNonNull(name);
        this.type = Objects.requireNonNull(type);
        this.members = List.copyOf(members);
        this.aliases = List.copyOf(aliases);
    }

    protected OperationType(String name, Class<T> type, List<String> members) {
        this(name, type, members, List.of());
    }

    /** The {@code op} value. */
    public final String name() {
        return name;
    }

    public final Class<T> type() {
        return type;
    }

    /** The JSON members besides {@code op}, in documentation order. */
    public final List<String> members() {
        return members;
    }

    /** Other {@code op} values that parse to this type. */
    public final List<String> aliases() {
        return aliases;
    }

    /**
     * Reads and validates one operation object, reporting every problem through {@code in}.
     *
     * @return the operation, or null when a problem was reported that leaves no value
     */
    public abstract T parse(OperationInput in);

    /**
     * The image after this step, from the image before it: {@code in}'s size changed as the step
     * changes it ({@link OutputSize.Estimate#then}), and any larger image it holds on the way
     * (cover's scaled copy before its crop) counted in the peak. Same size by default.
     */
    public OutputSize.Estimate geometry(T op, OutputSize.Estimate in) {
        return in;
    }

    /**
     * Whether the step's parameters are measured in the pixels of the image it receives (a crop
     * rectangle, a blur sigma, a watermark margin): when such a step comes before a variant's first
     * resize, the source must be decoded at full size, so JPEG shrink-on-load is off for the job.
     * A step that only recolours (grayscale, modulate) or only moves pixels (rotate) gives the same
     * picture on a reduced decode.
     */
    public boolean worksInSourcePixels() {
        return false;
    }

    /**
     * The scale the step resamples a {@code width × height} image by, per axis ({sx, sy}), for the
     * shrink-on-load rule; null for a step that does not resample (the default).
     */
    public double[] scales(T op, long width, long height) {
        return null;
    }

    /**
     * Pixels of the largest image the step asks the worker to make regardless of the source (a
     * resize's box, twice it for cover and outside, whose intermediate overshoots the box), for the
     * native memory reservation; 0 by default (the source-sized images are in the per-pixel model).
     */
    public long reservedOutputPixels(T op) {
        return 0;
    }

    /** {@link #geometry} for an operation known to be of this type. */
    final OutputSize.Estimate geometryOf(Operation op, OutputSize.Estimate in) {
        return geometry(type.cast(op), in);
    }

    final double[] scalesOf(Operation op, long width, long height) {
        return scales(type.cast(op), width, height);
    }

    /** {@link #reservedOutputPixels} for an operation known to be of this type. */
    public final long reservedOutputPixelsOf(Operation op) {
        return reservedOutputPixels(type.cast(op));
    }

    @Override
    public String toString() {
        return name;
    }
}
