package com.fairpix.core.image;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Random access to an image's bytes for the header parsers of formats whose header may sit
 * anywhere in the file: a TIFF's image file directory (libtiff writes it after the pixels by
 * default) and a HEIF's {@code meta} box (after {@code mdat} in some files). Reads are small
 * (the directories and boxes, never the pixel data).
 */
public interface ByteSource {
    /** Bytes readable, from offset 0. */
    long length();

    /** True when {@link #length()} is the file's own end, false for a prefix of a longer file. */
    boolean whole();

    /**
     * Exactly {@code n} bytes at {@code offset}.
     *
     * @throws ImageHeader.HeaderException (truncated) when they run past {@link #length()}
     */
    byte[] read(long offset, int n) throws ImageHeader.HeaderException;

    /** The bytes of {@code data}; {@code whole} says whether they are the whole file. */
    static ByteSource of(byte[] data, boolean whole) {
        return new InMemory(data, whole);
    }

    /** Bytes in memory: {@link ByteWindow} walks {@link #data} itself rather than copies of it. */
    record InMemory(byte[] data, boolean whole) implements ByteSource {
        @Override public long length() { return data.length; }

        @Override public byte[] read(long offset, int n) throws ImageHeader.HeaderException {
            if (offset < 0 || n < 0 || offset > data.length - n) throw new ImageHeader.HeaderException("header truncated at byte " + offset, true);
            byte[] out = new byte[n];
            System.arraycopy(data, (int) offset, out, 0, n);
            return out;
        }
    }

    /**
     * A whole file of {@code size} bytes, read with positional reads on demand.
     *
     * @throws UncheckedIOException when the file cannot be read
     */
    static ByteSource of(Path file, long size) {
        return new ByteSource() {
            @Override public long length() { return size; }

            @Override public boolean whole() { return true; }

            @Override public byte[] read(long offset, int n) throws ImageHeader.HeaderException {
                if (offset < 0 || n < 0 || offset > size - n) throw new ImageHeader.HeaderException("header truncated at byte " + offset, true);
                ByteBuffer buf = ByteBuffer.allocate(n);
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                    while (buf.hasRemaining()) {
                        if (ch.read(buf, offset + buf.position()) < 0) throw new ImageHeader.HeaderException("file ended at byte " + (offset + buf.position()), true);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("reading " + file + ": " + e.getMessage(), e);
                }
                return buf.array();
            }
        };
    }
}
