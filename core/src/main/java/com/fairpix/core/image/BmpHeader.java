package com.fairpix.core.image;

/**
 * A Windows bitmap's file and DIB headers (BITMAPCOREHEADER: 16-bit sizes; BITMAPINFOHEADER and
 * its V4/V5 successors: 32-bit signed sizes, negative height for top-down rows). An uncompressed
 * bitmap (BI_RGB, BI_BITFIELDS) is complete when its rows, each padded to 4 bytes, fit in the file;
 * RLE bitmaps are left to the decoder.
 */
final class BmpHeader {
    private BmpHeader() {}

    static ImageHeader read(byte[] d, boolean checkEnd) throws ImageHeader.HeaderException {
        long dib = ImageHeader.u32(d, 14, true);
        long width, height;
        int bpp;
        long compression = 0;
        if (dib == 12) {
            if (d.length < 26) throw new ImageHeader.HeaderException("bmp: header truncated", true);
            width = ImageHeader.u16(d, 18, true);
            height = ImageHeader.u16(d, 20, true);
            bpp = ImageHeader.u16(d, 24, true);
        } else {
            if (d.length < 34) throw new ImageHeader.HeaderException("bmp: header truncated", true);
            width = (int) ImageHeader.u32(d, 18, true);
            height = Math.abs((long) (int) ImageHeader.u32(d, 22, true));
            bpp = ImageHeader.u16(d, 28, true);
            compression = ImageHeader.u32(d, 30, true);
        }
        if (width <= 0 || height <= 0 || width > Integer.MAX_VALUE || height > Integer.MAX_VALUE) {
            throw new ImageHeader.HeaderException("bmp: size " + width + "x" + height);
        }
        if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32) throw new ImageHeader.HeaderException("bmp: " + bpp + " bits per pixel");
        boolean complete = false;
        if (checkEnd) {
            long offset = ImageHeader.u32(d, 10, true);
            long stride = (width * bpp + 31) / 32 * 4;
            boolean uncompressed = compression == 0 || compression == 3 || compression == 6;
            complete = !uncompressed || offset + stride * height <= d.length;
        }
        return new ImageHeader(ImageFormat.BMP, (int) width, (int) height, 1, false, complete, false, 1, false, false);
    }


}
