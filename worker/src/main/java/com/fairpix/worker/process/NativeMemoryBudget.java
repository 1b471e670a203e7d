package com.fairpix.worker.process;

import java.util.concurrent.Semaphore;

/**
 * Caps the native (off-heap) pixel memory that concurrently running jobs may hold, so worker
 * concurrency is sized by pixels rather than by job count or heap: OpenCV allocates every Mat
 * outside {@code -Xmx} (docs/pipeline.md, OpenCV facts: a 280 MP decode took 840 MB with -Xmx512m). Permits are
 * KiB; a job larger than the whole budget is granted the whole budget, so it runs alone.
 */
public final class NativeMemoryBudget {
    private final Semaphore permits;
    private final int totalKib;

    /** @param bytes the budget, bytes */
    public NativeMemoryBudget(long bytes) {
        this.totalKib = (int) Math.min(Integer.MAX_VALUE, Math.max(1, bytes / 1024));
        this.permits = new Semaphore(totalKib, true);
    }

    /** A budget that never blocks. */
    public static NativeMemoryBudget unlimited() {
        return new NativeMemoryBudget((long) Integer.MAX_VALUE * 1024);
    }

    /** Held native memory; release by closing. */
    public final class Lease implements AutoCloseable {
        private final int kib;
        private boolean closed;

        private Lease(int kib) {
            this.kib = kib;
        }

        public long bytes() {
            return (long) kib * 1024;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                permits.release(kib);
            }
        }
    }

    /** Waits (interruptibly) until {@code bytes} of the budget are free, and takes them. */
    public Lease acquire(long bytes) throws InterruptedException {
        int kib = (int) Math.min(totalKib, Math.max(1, (bytes + 1023) / 1024));
        permits.acquire(kib);
        return new Lease(kib);
    }

    /** Takes {@code bytes} of the budget if free now; null otherwise. */
    public Lease tryAcquire(long bytes) {
        int kib = (int) Math.min(totalKib, Math.max(1, (bytes + 1023) / 1024));
        return permits.tryAcquire(kib) ? new Lease(kib) : null;
    }

    /** Bytes currently reserved by running jobs. */
    public long reservedBytes() {
        return (long) (totalKib - permits.availablePermits()) * 1024;
    }

    /**
     * Native bytes a job needs, estimated: per decoded source pixel 8 bytes of raw decode (16-bit
     * RGBA at most) + 4 of the normalised BGRA + 4 for an upright/working copy; per output pixel of
     * the largest variant 4 for the result + 12 for float compositing (alpha flattening, watermark).
     */
    public static long estimate(long decodedPixels, long largestOutputPixels) {
        return estimate(decodedPixels, largestOutputPixels, 0);
    }

    /**
     * {@link #estimate(long, long)} plus a buffered JPEG's coefficient buffers: a progressive file,
     * or a baseline one with several scans ({@code ImageHeader.buffered}), makes libjpeg keep every
     * DCT coefficient of the whole image (2 bytes each, 64 per 8x8 block and component) while it
     * decodes, 6 bytes per source pixel with full-resolution chroma, whatever the output scale.
     *
     * @param coefficientPixels source pixels (width x height) of a buffered JPEG; 0 for anything else
     */
    public static long estimate(long decodedPixels, long largestOutputPixels, long coefficientPixels) {
        return decodedPixels * 16 + largestOutputPixels * 16 + coefficientPixels * 6;
    }
}
