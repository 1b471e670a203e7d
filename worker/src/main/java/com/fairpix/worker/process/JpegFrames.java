package com.fairpix.worker.process;

/**
 * Reads a JPEG's frame type from its markers without decoding: whether it is progressive (SOF2,
 * SOF6, SOF10, SOF14; ITU-T T.81 Table B.1). A progressive JPEG makes libjpeg hold the whole image's
 * DCT coefficients while it decodes (jdcoefct.c: a full-image coefficient buffer), whatever the
 * output scale, so the memory budget must count them.
 */
final class JpegFrames {
    private JpegFrames() {}

    /** True for a progressive JPEG; false for a baseline one, another format or a header it cannot read. */
    static boolean progressive(byte[] d) {
        if (d.length < 4 || (d[0] & 0xFF) != 0xFF || (d[1] & 0xFF) != 0xD8) return false;
        int i = 2;
        while (i + 4 <= d.length) {
            if ((d[i] & 0xFF) != 0xFF) return false;
            int marker = d[i + 1] & 0xFF;
            if (marker == 0xFF) { // fill byte
                i++;
                continue;
            }
            if (marker == 0xD9 || marker == 0xDA) return false; // EOI or a scan before any frame header
            if (marker >= 0xD0 && marker <= 0xD7 || marker == 0x01) { // markers without a length
                i += 2;
                continue;
            }
            boolean sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
            if (sof) return marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE;
            int length = ((d[i + 2] & 0xFF) << 8) | (d[i + 3] & 0xFF);
            if (length < 2) return false;
            i += 2 + length;
        }
        return false;
    }
}
