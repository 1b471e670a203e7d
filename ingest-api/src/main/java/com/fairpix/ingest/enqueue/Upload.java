package com.fairpix.ingest.enqueue;

import com.fairpix.core.image.ByteSource;
import com.fairpix.core.image.ImageHeader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One uploaded image, read into a temporary file while it was received (never whole in memory):
 * its size, its SHA-256 and the file. Closing deletes the file.
 *
 * @param file   the bytes, exactly as received
 * @param size   bytes
 * @param sha256 lower-case hex SHA-256 of the bytes
 */
public record Upload(Path file, long size, String sha256) implements AutoCloseable {

    /**
     * How much of the start of the file the header sniffing holds: the size of the upload's reading
     * buffer (64 KiB), so the header read counts in the upload's memory as one more buffer. What
     * lies further (a JPEG frame header behind megabytes of ICC or XMP segments, GIF frames, JPEG
     * scans, a TIFF directory, a HEIF meta box) is read from the file through one 64 KiB window.
     */
    public static final int HEAD_BYTES = 64 * 1024;
    /**
     * The most heap the header read holds at once: the head, one window over the file, and an Exif
     * segment past the head (a segment is at most 64 KiB).
     */
    public static final int HEADER_MEMORY_BYTES = 3 * 64 * 1024;

    /**
     * The first {@link #HEAD_BYTES} bytes (all of a smaller file).
     *
     * @throws UncheckedIOException when the temporary file cannot be read
     */
    public byte[] head() {
        return head(HEAD_BYTES);
    }

    /**
     * The image's header, parsed once from the first {@link #HEAD_BYTES} and, past them, the file
     * through one 64 KiB window (within {@link #HEADER_MEMORY_BYTES}, whatever the file: issue 33;
     * was a second read of up to 16 MiB into the heap when a JPEG's frame header lay past 512 KiB).
     * A malformed header is refused from the first read. A TIFF's directory and a HEIF's meta box,
     * which may lie anywhere in the file, are read from the file with small positional reads; every
     * GIF block and every JPEG scan, which may lie anywhere after the prefix, are walked over the
     * whole file through one 64 KiB window (issue 33). Completeness is not checked
     * ({@link ImageHeader#readPrefix}).
     *
     * @return null when the magic bytes match no accepted format
     * @throws ImageHeader.HeaderException when the header is malformed or not within the limit
     * @throws UncheckedIOException when the temporary file cannot be read
     */
    public ImageHeader header() throws ImageHeader.HeaderException {
        return ImageHeader.readPrefix(head(HEAD_BYTES), ByteSource.of(file, size));
    }

    private byte[] head(int max) {
        try (InputStream in = Files.newInputStream(file)) {
            return in.readNBytes((int) Math.min(size, max));
        } catch (IOException e) {
            throw new UncheckedIOException("reading upload " + file + ": " + e.getMessage(), e);
        }
    }

    /** An upload of {@code bytes} (tests and in-process callers); written to a temporary file in {@code dir}. */
    public static Upload of(byte[] bytes, Path dir) {
        try {
            Path f = Files.createTempFile(dir, "upload-", ".part");
            Files.write(f, bytes);
            return new Upload(f, bytes.length, JobSubmitter.sha256(bytes));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes the temporary file (idempotent). */
    @Override
    public void close() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // a leftover file in the upload folder; it is named upload-*.part
        }
    }
}
