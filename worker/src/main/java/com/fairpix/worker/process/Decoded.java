package com.fairpix.worker.process;

import org.opencv.core.Mat;

/**
 * A decoded, upright, 8-bit image: BGR (3 channels) or BGRA (4 channels). The caller releases it.
 *
 * @param reduction the shrink-on-load factor used (1, 2, 4 or 8)
 */
public record Decoded(Mat image, int reduction) implements AutoCloseable {
    public boolean hasAlpha() {
        return image.channels() == 4;
    }

    @Override
    public void close() {
        image.release();
    }
}
