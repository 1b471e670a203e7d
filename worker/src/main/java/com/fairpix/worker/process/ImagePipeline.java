package com.fairpix.worker.process;

import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.Operation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.opencv.core.Mat;

/**
 * One job's image work: decode once, then for each variant apply its operations in order on the
 * shared source, and encode. Every intermediate Mat is released as soon as it is used, since
 * pixel memory is native and outside the Java heap.
 */
public final class ImagePipeline {
    private final Decode decode;

    /** @param maxPixels largest source decoded, pixels */
    public ImagePipeline(long maxPixels) {
        OpenCv.ensureLoaded();
        this.decode = new Decode(maxPixels);
    }

    /** One encoded variant: bytes, format (jpeg|png|webp), pixel size. */
    public record Output(byte[] data, Operation.Encode encode, int width, int height) {}

    /**
     * @return variant name → encoded output, in spec order
     * @throws com.fairpix.core.error.JobFailure.Permanent when the source cannot be decoded
     */
    public Map<String, Output> process(byte[] source, JobSpec spec) {
        Map<String, Output> outputs = new LinkedHashMap<>();
        try (Decoded decoded = decode.apply(source, spec)) {
            for (Map.Entry<String, List<Operation>> variant : spec.variants().entrySet()) {
                outputs.put(variant.getKey(), render(decoded.image(), variant.getValue()));
            }
        }
        return outputs;
    }

    private static Output render(Mat source, List<Operation> ops) {
        Mat current = source;
        try {
            for (Operation op : ops) {
                if (Thread.currentThread().isInterrupted()) throw new IllegalStateException("job interrupted");
                switch (op) {
                    case Operation.Resize r -> {
                        Mat next = Resize.apply(current, r);
                        if (current != source) current.release();
                        current = next;
                    }
                    case Operation.Encode e -> {
                        return new Output(Encode.apply(current, e), e, current.cols(), current.rows());
                    }
                }
            }
            throw new IllegalStateException("variant without an encode step");
        } finally {
            if (current != source) current.release();
        }
    }
}
