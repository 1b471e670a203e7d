package com.fairpix.worker.process;

import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobSpec;
import java.util.Map;

/**
 * Where a job's image work (decode → operations → encode) runs: in the worker's own JVM
 * ({@link ImagePipeline}) or in a supervised processor process ({@code worker.processors}, see
 * docs/processors.md). Throws what the pipeline throws: {@code Permanent} for an input that can never
 * succeed (a processor's death on it included: {@code decoder-crashed}, {@code timeout},
 * {@code out-of-memory}), {@code RetryLater} for a capacity the work waits on.
 */
public interface ImageProcessor extends AutoCloseable {

    /**
     * @param jobId  the job, for attributing a processor's death to it
     * @param assets where the watermarks the spec names are read from (by the worker: a processor has
     *               no access to storage)
     */
    Processed process(String jobId, byte[] source, JobSpec spec, Assets assets) throws InterruptedException;

    /**
     * @param outputs variant name → encoded output, in spec order
     * @param usage   the job's CPU time and peak memory as measured where it ran; null when the caller
     *                measures (in-process: the processing thread's CPU time, no peak memory)
     */
    record Processed(Map<String, ImagePipeline.Output> outputs, JobRecord.Usage usage) {}

    /** Stops whatever runs the work (processes); nothing for the in-process pipeline. */
    @Override
    default void close() {}
}
