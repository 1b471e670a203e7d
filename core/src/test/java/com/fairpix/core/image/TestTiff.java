package com.fairpix.core.image;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds small uncompressed TIFFs for tests (TIFF 6.0 baseline RGB, one strip), laid out as libtiff
 * writes them: pixel data first, the image file directory after it, so that a parser that reads
 * only a file's first bytes cannot find the size.
 */
public final class TestTiff {
    private TestTiff() {}

    /**
     * @param rgb         samples, row-major, 3 per pixel (8 or 16 bits each)
     * @param bits        8 or 16
     * @param orientation TIFF Orientation tag (274), 1–8
     * @param pages       number of (identical) directories: more than one makes a multi-page file
     */
    public static byte[] rgb(int width, int height, int[] rgb, int bits, int orientation, int pages) {
        int bytesPerSample = bits / 8;
        ByteBuffer pixels = ByteBuffer.allocate(width * height * 3 * bytesPerSample).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : rgb) {
            if (bits == 8) pixels.put((byte) v);
            else pixels.putShort((short) v);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer header = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        int dataAt = 8;
        int bitsAt = dataAt + pixels.capacity();              // BitsPerSample's 3 SHORTs
        int firstIfd = bitsAt + 8;
        header.put((byte) 'I').put((byte) 'I').putShort((short) 42).putInt(firstIfd);
        out.writeBytes(header.array());
        out.writeBytes(pixels.array());
        ByteBuffer bitsArray = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        bitsArray.putShort((short) bits).putShort((short) bits).putShort((short) bits);
        out.writeBytes(bitsArray.array());
        int entries = 10, ifdSize = 2 + entries * 12 + 4;
        for (int p = 0; p < pages; p++) {
            int next = p + 1 < pages ? firstIfd + (p + 1) * ifdSize : 0;
            List<int[]> e = new ArrayList<>();
            e.add(new int[] {256, 4, 1, width});
            e.add(new int[] {257, 4, 1, height});
            e.add(new int[] {258, 3, 3, bitsAt});
            e.add(new int[] {259, 3, 1, 1});                   // no compression
            e.add(new int[] {262, 3, 1, 2});                   // RGB
            e.add(new int[] {273, 4, 1, dataAt});
            e.add(new int[] {274, 3, 1, orientation});
            e.add(new int[] {277, 3, 1, 3});
            e.add(new int[] {278, 4, 1, height});              // RowsPerStrip
            e.add(new int[] {279, 4, 1, pixels.capacity()});
            ByteBuffer ifd = ByteBuffer.allocate(ifdSize).order(ByteOrder.LITTLE_ENDIAN);
            ifd.putShort((short) entries);
            for (int[] x : e) {
                ifd.putShort((short) x[0]).putShort((short) x[1]).putInt(x[2]);
                if (x[1] == 3 && x[2] == 1) ifd.putShort((short) x[3]).putShort((short) 0);
                else ifd.putInt(x[3]);
            }
            ifd.putInt(next);
            out.writeBytes(ifd.array());
        }
        return out.toByteArray();
    }
}
