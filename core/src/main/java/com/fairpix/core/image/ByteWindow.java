package com.fairpix.core.image;

/**
 * Sequential reading of a {@link ByteSource} through one window of at most 64 KiB, for the walks
 * that must see a whole file without holding it (every GIF block, every JPEG scan): memory stays
 * one window whatever the file's size.
 */
final class ByteWindow {
    private static final int SIZE = 64 * 1024;
    private final ByteSource src;
    private final int size;
    private byte[] buf = new byte[0];
    private long start;

    ByteWindow(ByteSource src) {
        this(src, SIZE);
    }

    /** @param size bytes read at a time: small for a walk that jumps (JPEG segment headers), 64 KiB for one that streams */
    ByteWindow(ByteSource src, int size) {
        this.src = src;
        this.size = size;
        // Bytes already in memory are walked where they are: copying them window by window cost a
        // processor (C1 only) ~0.4 ms per 400 KB JPEG, the copies' zeroing included.
        if (src instanceof ByteSource.InMemory m) buf = m.data();
    }

    /** Bytes readable. */
    long length() {
        return src.length();
    }

    /** The unsigned byte at {@code pos}, or -1 past the end. */
    int at(long pos) throws ImageHeader.HeaderException {
        if (pos < 0 || pos >= src.length()) return -1;
        if (pos < start || pos >= start + buf.length) {
            start = pos;
            buf = src.read(pos, (int) Math.min(size, src.length() - pos));
        }
        return buf[(int) (pos - start)] & 0xFF;
    }

    /**
     * The offset of the first 0xFF byte at or after {@code pos}, or -1 when there is none before the
     * end: a JPEG's entropy-coded data scanned window by window over the array, not a call per byte.
     */
    long nextFF(long pos) throws ImageHeader.HeaderException {
        long length = src.length();
        while (pos >= 0 && pos < length) {
            if (pos < start || pos >= start + buf.length) {
                start = pos;
                buf = src.read(pos, (int) Math.min(size, length - pos));
                if (buf.length == 0) return -1;
            }
            byte[] b = buf;
            for (int i = (int) (pos - start); i < b.length; i++) if (b[i] == (byte) 0xFF) return start + i;
            pos = start + b.length;
        }
        return -1;
    }

    /** Unsigned 16-bit value at {@code pos}, or -1 when it runs past the end. */
    int u16(long pos, boolean le) throws ImageHeader.HeaderException {
        int a = at(pos), b = at(pos + 1);
        if (a < 0 || b < 0) return -1;
        return le ? a | (b << 8) : (a << 8) | b;
    }
}
