package com.fairpix.worker.process;

import com.fairpix.core.image.ImageHeader;

/**
 * What the decode step will do, worked out from the header alone (no pixels yet), so the worker
 * can reserve native memory before OpenCV allocates any.
 *
 * @param header        the source's header (stored dimensions, EXIF orientation)
 * @param flags         the {@code Imgcodecs.IMREAD_*} flags to decode with
 * @param reduction     JPEG shrink-on-load factor: 1, 2, 4 or 8
 * @param decodedWidth  width of the decoded image as stored (before orientation), pixels
 * @param decodedHeight height of the decoded image as stored, pixels
 */
public record DecodePlan(ImageHeader header, int flags, int reduction, int decodedWidth, int decodedHeight) {

    /** Pixels OpenCV will allocate for the decoded image. */
    public long decodedPixels() {
        return (long) decodedWidth * decodedHeight;
    }
}
