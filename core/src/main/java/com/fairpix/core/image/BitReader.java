package com.fairpix.core.image;

/**
 * Big-endian (most significant bit first) reader over {@code d[from, to)}, for the codec headers
 * the gate reads (AV1 sequence headers, HEVC SPS). Reading past the end throws
 * {@link IndexOutOfBoundsException}, which the callers take as "no size from this header".
 */
final class BitReader {
    private final byte[] d;
    private final int to;
    private long pos;

    BitReader(byte[] d, int from, int to) {
        this.d = d;
        this.to = to;
        this.pos = (long) from * 8;
    }

    /** The next {@code n} bits (n ≤ 63) as an unsigned value. */
    long bits(int n) {
        long v = 0;
        for (int i = 0; i < n; i++) {
            int at = (int) (pos >> 3);
            if (at >= to) throw new IndexOutOfBoundsException("end of header");
            v = (v << 1) | ((d[at] >> (7 - (pos & 7))) & 1);
            pos++;
        }
        return v;
    }

    boolean flag() {
        return bits(1) != 0;
    }

    void skip(int n) {
        bits(n);
    }

    /** Exp-Golomb ue(v) (ITU-T H.265 §9.2); at most 32 leading zeros. */
    long ue() {
        int zeros = 0;
        while (bits(1) == 0) {
            if (++zeros > 32) throw new IndexOutOfBoundsException("ue(v) too long");
        }
        return (1L << zeros) - 1 + bits(zeros);
    }

    /** AV1's uvlc() (AV1 spec §4.10.3): 32 or more leading zeros read as 2^32 − 1. */
    long uvlc() {
        int zeros = 0;
        while (!flag()) {
            if (++zeros >= 32) return (1L << 32) - 1;
        }
        return bits(zeros) + (1L << zeros) - 1;
    }
}
