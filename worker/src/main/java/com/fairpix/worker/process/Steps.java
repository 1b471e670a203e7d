package com.fairpix.worker.process;

import com.fairpix.core.job.Modulate;
import com.fairpix.core.job.Operation;
import com.fairpix.core.job.OperationType;
import com.fairpix.core.job.Operations;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.opencv.core.Mat;

/**
 * The pixel half of each operation: which class's {@code apply} runs a core
 * {@link OperationType} on an OpenCV Mat. Core knows the operation (name, parser, geometry,
 * memory); core cannot load OpenCV, so the step that touches pixels is registered here, one line
 * per operation, and {@code StepsTest} holds every registered type to having one. {@code encode}
 * is the variant's terminal step, run by {@link ImagePipeline} itself (it makes bytes, not a Mat).
 */
final class Steps {
    private Steps() {}

    /**
     * One operation on one image.
     *
     * @param <T> the operation record
     */
    @FunctionalInterface
    interface Step<T extends Operation> {
        /**
         * @return the image after the step: a new Mat, or {@code image} itself for a step that
         *         changes no pixel (the pipeline releases what it no longer needs)
         * @throws com.fairpix.core.error.Permanent when the step cannot work on this input
         */
        Mat apply(Mat image, T op, Context context);
    }

    /**
     * What a step may need besides the image: the job's time limit (for steps long enough to check
     * it inside, in strips), the job's watermark images, and the variant's background colour, which
     * {@code background} sets for the encode step.
     */
    static final class Context {
        final Deadline deadline;
        final Function<String, Mat> watermarks;
        int[] background = Flatten.WHITE;

        Context(Deadline deadline, Function<String, Mat> watermarks) {
            this.deadline = deadline;
            this.watermarks = watermarks;
        }
    }

    private static final Map<Class<?>, Step<?>> BY_TYPE = new HashMap<>();

    static {
        register(Operation.Resize.TYPE, (m, op, c) -> Resize.apply(m, op));
        register(Operation.Crop.TYPE, (m, op, c) -> Crop.apply(m, op));
        register(Operation.Rotate.TYPE, (m, op, c) -> Rotate.apply(m, op));
        register(Operation.Flip.TYPE, (m, op, c) -> Mirror.flip(m));
        register(Operation.Flop.TYPE, (m, op, c) -> Mirror.flop(m));
        register(Operation.Blur.TYPE, (m, op, c) -> Blur.apply(m, op, c.deadline));
        register(Operation.Sharpen.TYPE, (m, op, c) -> Sharpen.apply(m, op, c.deadline));
        register(Operation.Grayscale.TYPE, (m, op, c) -> Grayscale.apply(m));
        register(Operation.Watermark.TYPE, (m, op, c) -> Watermark.apply(m, c.watermarks.apply(op.key()), op));
        register(Operation.Background.TYPE, (m, op, c) -> {
            c.background = op.bgr();
            return m;
        });
        register(Modulate.TYPE, (m, op, c) -> ModulateStep.apply(m, op, c.deadline));
    }

    private static <T extends Operation> void register(OperationType<T> type, Step<T> step) {
        if (BY_TYPE.put(type.type(), step) != null) throw new IllegalStateException("two steps for " + type.name());
    }

    /** Whether {@code type} has a pixel step here. */
    static boolean has(OperationType<?> type) {
        return BY_TYPE.containsKey(type.type());
    }

    /**
     * Runs {@code op}'s step.
     *
     * @throws IllegalStateException when the operation has no step here (a programming error; StepsTest catches it)
     */
    @SuppressWarnings("unchecked")
    static <T extends Operation> Mat apply(Mat image, T op, Context context) {
        Step<T> step = (Step<T>) BY_TYPE.get(op.getClass());
        if (step == null) throw new IllegalStateException("no pixel step for operation " + Operations.of(op).name() + " (register it in Steps)");
        return step.apply(image, op, context);
    }
}
