package com.fairpix.core.image;

/**
 * Classic TIFF's first image file directory (TIFF 6.0 §2: header, IFD entries; tags 256, 257, 262,
 * 273, 274, 277, 279, 324, 325, 338), read through a {@link ByteSource} because the IFD may sit
 * after the pixel data. Only the first page is decoded (OpenCV's and libvips' default): a file with
 * a next IFD reports {@code pages = 2} ("more than one") without walking the rest.
 */
final class TiffHeader {
    private TiffHeader() {}

    private static final int WIDTH = 256, HEIGHT = 257, BITS = 258, TILE_WIDTH = 322, TILE_LENGTH = 323, PHOTOMETRIC = 262, STRIP_OFFSETS = 273, ORIENTATION = 274,
            SAMPLES = 277, STRIP_BYTES = 279, TILE_OFFSETS = 324, TILE_BYTES = 325, EXTRA_SAMPLES = 338;
    /** More entries than any real first IFD has; a crafted count would make us read megabytes. */
    private static final int MAX_ENTRIES = 4096;
    /** Strips or tiles checked for completeness; past this the check is skipped (the decoder decides). */
    private static final int MAX_CHUNKS = 1 << 20;
    static final int PHOTOMETRIC_CMYK = 5;

    static ImageHeader read(ByteSource src, boolean checkEnd) throws ImageHeader.HeaderException {
        byte[] h = src.read(0, 8);
        boolean le = h[0] == 'I';
        long ifd = ImageHeader.u32(h, 4, le);
        if (ifd < 8) throw new ImageHeader.HeaderException("tiff: first IFD offset " + ifd + " points into the header");
        int count = ImageHeader.u16(src.read(ifd, 2), 0, le);
        if (count == 0 || count > MAX_ENTRIES) throw new ImageHeader.HeaderException("tiff: first IFD has " + count + " entries");
        byte[] e = src.read(ifd + 2, count * 12 + 4);
        long width = 0, height = 0;
        int orientation = 1, photometric = -1, samples = 1;
        boolean extraSamples = false;
        int offsetsAt = -1, bytesAt = -1;
        long tileWidth = 0, tileLength = 0, bits = 0;
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int k = 0; k < count; k++) {
            int at = k * 12;
            int tag = ImageHeader.u16(e, at, le);
            // libtiff keeps the first of duplicate tags (tif_dirread.c); so must the gate, or a
            // second ImageWidth of 1 would hide the first's 20000.
            if (!seen.add(tag)) continue;
            switch (tag) {
                case BITS -> {
                    long n = ImageHeader.u32(e, at + 4, le); // one per sample
                    if (n < 1 || n > 16) throw new ImageHeader.HeaderException("tiff: BitsPerSample has " + n + " values");
                    for (long b : values(src, e, at, (int) n, le)) bits = Math.max(bits, b);
                }
                case TILE_WIDTH -> tileWidth = scalar(e, at, le);
                case TILE_LENGTH -> tileLength = scalar(e, at, le);
                case WIDTH -> width = scalar(e, at, le);
                case HEIGHT -> height = scalar(e, at, le);
                case ORIENTATION -> {
                    long v = scalar(e, at, le);
                    orientation = v >= 1 && v <= 8 ? (int) v : 1;
                }
                case PHOTOMETRIC -> photometric = (int) scalar(e, at, le);
                case SAMPLES -> samples = (int) scalar(e, at, le);
                // 1 associated, 2 unassociated alpha; 0 is "unspecified", not alpha (TIFF 6.0 §18).
                case EXTRA_SAMPLES -> extraSamples = ImageHeader.u32(e, at + 4, le) == 1 && (scalar(e, at, le) == 1 || scalar(e, at, le) == 2);
                case STRIP_OFFSETS, TILE_OFFSETS -> offsetsAt = at;
                case STRIP_BYTES, TILE_BYTES -> bytesAt = at;
                default -> { }
            }
        }
        if (width <= 0 || height <= 0 || width > Integer.MAX_VALUE || height > Integer.MAX_VALUE) {
            throw new ImageHeader.HeaderException("tiff: no usable ImageWidth/ImageLength (" + width + "x" + height + ")");
        }
        // What the decoder allocates beyond width x height: a tile buffer, and wider samples than the
        // memory estimate's 16 bits.
        if (tileWidth * tileLength > Math.max(4 * width * height, 1L << 16)) {
            throw new ImageHeader.HeaderException("tiff: tiles of " + tileWidth + "x" + tileLength + " for a " + width + "x" + height + " image");
        }
        if (bits > 16) throw new ImageHeader.HeaderException("tiff: " + bits + " bits per sample (at most 16 are read)");
        boolean more = ImageHeader.u32(e, count * 12, le) != 0;
        boolean complete = checkEnd && (offsetsAt < 0 || bytesAt < 0 || reachesData(src, e, offsetsAt, bytesAt, le));
        // Alpha: an extra sample beside the colour ones (CMYK's fourth sample is ink, not alpha).
        boolean alpha = extraSamples && photometric != PHOTOMETRIC_CMYK;
        return new ImageHeader(ImageFormat.TIFF, (int) width, (int) height, orientation, false, complete, false,
                more ? 2 : 1, alpha, photometric == PHOTOMETRIC_CMYK);
    }

    /**
     * Whether the first IFD's PhotometricInterpretation is a Lab space (8 CIELab, TIFF 6.0 §23; 9
     * ICCLab, 10 ITULab, TIFF Technical Note 1); false when absent or unreadable.
     */
    static boolean lab(ByteSource src) {
        try {
            byte[] h = src.read(0, 8);
            boolean le = h[0] == 'I';
            long ifd = ImageHeader.u32(h, 4, le);
            int count = ImageHeader.u16(src.read(ifd, 2), 0, le);
            if (count == 0 || count > MAX_ENTRIES) return false;
            byte[] e = src.read(ifd + 2, count * 12);
            for (int k = 0; k < count; k++) {
                if (ImageHeader.u16(e, k * 12, le) != PHOTOMETRIC) continue;
                long v = scalar(e, k * 12, le);
                return v == 8 || v == 9 || v == 10;
            }
            return false;
        } catch (ImageHeader.HeaderException | RuntimeException e) {
            return false;
        }
    }

    /** Whether every strip (or tile) lies inside the file: a cut-off TIFF decodes with holes otherwise. */
    private static boolean reachesData(ByteSource src, byte[] e, int offsetsAt, int bytesAt, boolean le) throws ImageHeader.HeaderException {
        long n = ImageHeader.u32(e, offsetsAt + 4, le);
        // Counts that disagree, none, or too many to check: a malformed directory the decoder judges.
        if (n != ImageHeader.u32(e, bytesAt + 4, le) || n == 0 || n > MAX_CHUNKS) return true;
        long[] offsets = values(src, e, offsetsAt, (int) n, le);
        long[] bytes = values(src, e, bytesAt, (int) n, le);
        for (int i = 0; i < n; i++) {
            if (offsets[i] + bytes[i] > src.length()) return false;
        }
        return true;
    }

    /** The SHORT or LONG array of an entry: inline when it fits in 4 bytes, else at its offset. */
    private static long[] values(ByteSource src, byte[] e, int at, int n, boolean le) throws ImageHeader.HeaderException {
        int type = ImageHeader.u16(e, at + 2, le);
        int size = type == 3 ? 2 : 4;
        byte[] v = (long) n * size <= 4 ? java.util.Arrays.copyOfRange(e, at + 8, at + 12) : src.read(ImageHeader.u32(e, at + 8, le), n * size);
        long[] out = new long[n];
        for (int i = 0; i < n; i++) out[i] = size == 2 ? ImageHeader.u16(v, i * 2, le) : ImageHeader.u32(v, i * 4, le);
        return out;
    }

    /** The first value of a SHORT, LONG or BYTE entry (left-justified in the value field). */
    private static long scalar(byte[] e, int at, boolean le) {
        return switch (ImageHeader.u16(e, at + 2, le)) {
            case 1 -> e[at + 8] & 0xFF;
            case 3 -> ImageHeader.u16(e, at + 8, le);
            case 4 -> ImageHeader.u32(e, at + 8, le);
            default -> 0;
        };
    }


}
