package com.fairpix.worker.process;

import com.fairpix.core.error.Permanent;
import com.fairpix.core.error.RetryLater;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.Operation;
import com.fairpix.core.job.Operations;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.opencv.core.Mat;

/**
 * One job's image work: plan the decode from the header, reserve native memory for it, decode
 * once, then for each variant apply its operations in order on the shared source ({@link Steps},
 * one per registered {@link com.fairpix.core.job.OperationType}), and encode. The
 * time limit is checked between steps. Every intermediate Mat is released as soon as it is used,
 * since pixel memory is native and outside the Java heap.
 */
public final class ImagePipeline implements ImageProcessor {
    /** Largest watermark image decoded, pixels: an overlay never needs more. */
    static final long MAX_WATERMARK_PIXELS = 16_000_000;

    private final Decode decode;
    private final Decode watermarkDecode = new Decode(MAX_WATERMARK_PIXELS);
    private final NativeMemoryBudget budget;
    private final Duration timeLimit;
    private final LongSupplier nanoTime;

    /** No memory budget, no time limit (tests, benchmarks). @param maxPixels largest source decoded, pixels */
    public ImagePipeline(long maxPixels) {
        this(maxPixels, NativeMemoryBudget.unlimited(), null, com.fairpix.core.time.SystemTime.nanos());
    }

    /**
     * @param maxPixels largest source decoded, pixels
     * @param budget    native memory shared by all jobs of this worker
     * @param timeLimit per-job processing limit; null for none
     * @param nanoTime  time source for the limit
     */
    public ImagePipeline(long maxPixels, NativeMemoryBudget budget, Duration timeLimit, LongSupplier nanoTime) {
        OpenCv.ensureLoaded();
        this.decode = new Decode(maxPixels);
        this.budget = budget;
        this.timeLimit = timeLimit;
        this.nanoTime = nanoTime;
    }

    /** One encoded variant: bytes, format (jpeg|png|webp), pixel size. */
    public record Output(byte[] data, Operation.Encode encode, int width, int height) {}

    /**
     * Runs a few small jobs (a generated 96×64 JPEG, resized, encoded as JPEG, PNG and WebP) before
     * the first real one: a pipeline's first job otherwise paid 100-200 ms of one-time work (OpenCV's
     * codecs' set-up, the first interpretation of this code), on its tenant's wait and bill. Run
     * by each processor before its hello; the in-process worker does not (Worker.start says why).
     *
     * @return why a warm-up job failed, if one did (the real jobs will say so too); never throws
     */
    public java.util.Optional<Throwable> warmUp() {
        try {
            OpenCv.ensureLoaded();
            Mat m = new Mat(64, 96, org.opencv.core.CvType.CV_8UC3, new org.opencv.core.Scalar(40, 120, 200));
            org.opencv.core.MatOfByte jpeg = new org.opencv.core.MatOfByte();
            org.opencv.imgcodecs.Imgcodecs.imencode(".jpg", m, jpeg);
            byte[] source = jpeg.toArray();
            m.release();
            jpeg.release();
            JobSpec spec = JobSpec.parse("{\"variants\":{"
                    + "\"a\":[{\"op\":\"resize\",\"width\":32,\"height\":32,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"jpeg\",\"quality\":80}],"
                    + "\"b\":[{\"op\":\"resize\",\"width\":24},{\"op\":\"encode\",\"format\":\"png\"}],"
                    + "\"c\":[{\"op\":\"resize\",\"width\":24},{\"op\":\"encode\",\"format\":\"webp\",\"quality\":80}]}}");
            for (int i = 0; i < 3; i++) process(source, spec, key -> { throw new Permanent("asset-not-found", key); });
            return java.util.Optional.empty();
        } catch (Throwable e) {
            return java.util.Optional.of(e);
        }
    }

    /** Without assets: a spec with a watermark fails with {@code asset-not-found}. */
    public Map<String, Output> process(byte[] source, JobSpec spec) {
        try {
            return process(source, spec, Assets.NONE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RetryLater(RetryLater.Kind.CAPACITY, "interrupted", "interrupted while waiting for native memory", 0, e);
        }
    }

    /**
     * @param assets where watermark images are read from
     * @return variant name → encoded output, in spec order
     * @throws Permanent when the source cannot be decoded, a step
     *         fails on this input, or the time limit passes
     * @throws InterruptedException while waiting for native memory
     */
    public Map<String, Output> process(byte[] source, JobSpec spec, Assets assets) throws InterruptedException {
        DecodePlan plan = decode.plan(source, spec);
        try (NativeMemoryBudget.Lease lease = budget.acquire(estimate(plan, largestOutput(spec)))) {
            // The limit covers decode and processing, not the wait for memory: waiting is backpressure.
            Deadline deadline = timeLimit == null ? Deadline.none() : Deadline.after(timeLimit, nanoTime);
            Map<String, Output> outputs = new LinkedHashMap<>();
            Map<String, Mat> watermarks = new HashMap<>();
            List<NativeMemoryBudget.Lease> watermarkLeases = new java.util.ArrayList<>();
            try (Decoded decoded = decode.apply(source, plan)) {
                for (Map.Entry<String, List<Operation>> variant : spec.variants().entrySet()) {
                    outputs.put(variant.getKey(), render(decoded.image(), variant.getValue(), deadline,
                            key -> watermarks.computeIfAbsent(key, k -> loadWatermark(assets, k, watermarkLeases))));
                }
            } finally {
                watermarks.values().forEach(Mat::release);
                watermarkLeases.forEach(NativeMemoryBudget.Lease::close);
            }
            return outputs;
        }
    }

    /** In this JVM: the caller measures the job's usage (its thread's CPU time). */
    @Override
    public Processed process(String jobId, byte[] source, JobSpec spec, Assets assets) throws InterruptedException {
        return new Processed(process(source, spec, assets), null);
    }

    /**
     * Native bytes a decode needs ({@link NativeMemoryBudget#estimate(long, long, long)}), plus for
     * HEIC/AVIF what libheif holds beside our copy: its decoded planes (up to 6 bytes per pixel,
     * 16-bit 4:4:4) and its interleaved RGBA (4), 10 bytes per pixel it decodes (a grid's tiles and
     * canvas, an alpha plane: {@code ImageHeader.decodedPixels}).
     */
    static long estimate(DecodePlan plan, long largestOutputPixels) {
        // Progressive or multi-scan: libjpeg holds the whole image's coefficients (ImageHeader.buffered).
        long coefficients = plan.header().buffered() ? plan.header().pixels() : 0;
        boolean heif = plan.header().format() == com.fairpix.core.image.ImageFormat.HEIC || plan.header().format() == com.fairpix.core.image.ImageFormat.AVIF;
        return NativeMemoryBudget.estimate(plan.decodedPixels(), largestOutputPixels, coefficients) + (heif ? plan.header().gatePixels() * 10 : 0);
    }

    /**
     * Decodes a watermark within the memory budget: its pixels are native memory like the source's.
     * Without waiting (the job already holds its own lease, and two jobs waiting on each other's would
     * deadlock): when the budget has no room the attempt fails transiently and is retried later.
     */
    private Mat loadWatermark(Assets assets, String key, List<NativeMemoryBudget.Lease> leases) {
        byte[] data = assets.read(key);
        try {
            JobSpec whole = new JobSpec(Map.of("w", List.of(new Operation.Encode("png", 80))), null);
            DecodePlan plan = watermarkDecode.plan(data, whole);
            NativeMemoryBudget.Lease lease = budget.tryAcquire(estimate(plan, plan.decodedPixels()));
            if (lease == null) {
                throw new RetryLater(RetryLater.Kind.CAPACITY, "native-memory",
                        "no native memory free for watermark " + key + " now; the job is retried", 0, null);
            }
            leases.add(lease);
            return watermarkDecode.apply(data, plan).image();
        } catch (Permanent e) {
            throw new Permanent("bad-watermark", "watermark " + key + ": " + e.getMessage());
        }
    }

    /**
     * Pixels of the largest image any step asks for whatever the source (a resize's box:
     * {@link com.fairpix.core.job.OperationType#reservedOutputPixels}), 0 when none, for the memory estimate.
     */
    static long largestOutput(JobSpec spec) {
        long max = 0;
        for (List<Operation> ops : spec.variants().values()) {
            for (Operation op : ops) max = Math.max(max, Operations.of(op).reservedOutputPixelsOf(op));
        }
        return max;
    }

    private static Output render(Mat source, List<Operation> ops, Deadline deadline, java.util.function.Function<String, Mat> watermarks) {
        Mat current = source;
        Steps.Context context = new Steps.Context(deadline, watermarks);
        try {
            for (Operation op : ops) {
                deadline.check(Operations.of(op).name());
                // encode ends the variant: it makes bytes, with the background the steps before it chose.
                if (op instanceof Operation.Encode e) {
                    return new Output(Encode.apply(current, e, context.background), e, current.cols(), current.rows());
                }
                Mat next = Steps.apply(current, op, context);
                if (next != current && current != source) current.release();
                current = next;
            }
            throw new IllegalStateException("variant without an encode step");
        } finally {
            if (current != source) current.release();
        }
    }
}
