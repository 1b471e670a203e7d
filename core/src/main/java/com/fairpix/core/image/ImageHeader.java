package com.fairpix.core.image;

/**
 * What an image's header says, read without decoding pixels: JPEG SOFn + EXIF Orientation, PNG
 * IHDR, WebP VP8 / VP8L / VP8X, TIFF's first IFD, BMP's DIB header, GIF's logical screen and
 * frames, HEIF's primary item (sources: ITU T.81 Annex B, PNG spec §11.2.2, RFC 9649 §2.5–2.7,
 * TIFF 6.0 §2, GIF89a §18–20, ISO/IEC 23008-12 §6.5, CIPA DC-008 for EXIF).
 *
 * @param width       stored width, pixels (before orientation)
 * @param height      stored height, pixels
 * @param orientation EXIF orientation 1–8 (1 when absent); for HEIF the value with the same effect
 *                    as its irot/imir transformations
 * @param complete    false when the file visibly ends early (JPEG without EOI, PNG without IEND, a
 *                    TIFF strip or BMP row past the end, a GIF cut inside a block)
 * @param progressive a progressive JPEG (SOF2, 6, 10, 14; T.81 Table B.1): libjpeg then holds every
 *                    DCT coefficient of the whole image while it decodes, whatever the output scale
 * @param pages       images in the file: GIF frames, or 2 for a TIFF with more than one directory
 *                    ("more than one": the rest is not walked); 1 otherwise
 * @param alpha       the header declares transparency (PNG colour type 4 or 6, WebP VP8X alpha flag,
 *                    TIFF ExtraSamples, a GIF transparent index); false where the header does not
 *                    say (JPEG, BMP, HEIF, a PNG whose transparency is only a tRNS chunk)
 * @param cmyk        a CMYK (separated) TIFF, which must be decoded through the colour conversion
 * @param buffered    libjpeg buffers every DCT coefficient of the whole image while it decodes (2
 *                    bytes × 64 per 8x8 block and component), whatever the output scale: a progressive
 *                    frame, or a baseline/extended one with more than one scan or whose first scan
 *                    does not carry every component (libjpeg's {@code has_multiple_scans}, jdinput.c)
 * @param decodedPixels pixels the codecs decode for the image, at least width × height: for a HEIF,
 *                    the primary item's derivation (a grid's tiles with their overhang past the
 *                    canvas, an overlay's canvas and layers, an {@code iden}'s source); width × height
 *                    for the other formats. The pixel gates and the cost count it ({@link #gatePixels()})
 */
public record ImageHeader(ImageFormat format, int width, int height, int orientation, boolean animated, boolean complete,
                          boolean progressive, int pages, boolean alpha, boolean cmyk, boolean buffered, long decodedPixels) {

    /** {@code buffered} when progressive; as many pixels decoded as the image has. */
    public ImageHeader(ImageFormat format, int width, int height, int orientation, boolean animated, boolean complete,
                       boolean progressive, int pages, boolean alpha, boolean cmyk) {
        this(format, width, height, orientation, animated, complete, progressive, pages, alpha, cmyk, progressive, (long) width * height);
    }

    /** One page, no declared alpha, not CMYK. */
    public ImageHeader(ImageFormat format, int width, int height, int orientation, boolean animated, boolean complete,
                       boolean progressive) {
        this(format, width, height, orientation, animated, complete, progressive, 1, false, false);
    }

    /** Not progressive. */
    public ImageHeader(ImageFormat format, int width, int height, int orientation, boolean animated, boolean complete) {
        this(format, width, height, orientation, animated, complete, false);
    }

    /** Pixels as stored: width × height. */
    public long pixels() {
        return (long) width * height;
    }

    /**
     * What the gates limit and price: the larger of the image's pixels and those its decoder
     * allocates on the way ({@link #decodedPixels()}).
     */
    public long gatePixels() {
        return Math.max(pixels(), decodedPixels);
    }

    /** True when EXIF orientation swaps width and height (5–8). */
    public boolean transposed() {
        return orientation >= 5 && orientation <= 8;
    }

    /** Width as displayed, after EXIF orientation. */
    public int displayWidth() {
        return transposed() ? height : width;
    }

    /** Height as displayed, after EXIF orientation. */
    public int displayHeight() {
        return transposed() ? width : height;
    }

    /**
     * Thrown when the magic bytes name a format but its header cannot be read, or describes an image
     * whose decode cannot be bounded from it ({@link #overLimit()}).
     */
    public static final class HeaderException extends Exception {
        private final boolean truncated;
        private final boolean overLimit;

        public HeaderException(String message) {
            this(message, false);
        }

        /** @param truncated the bytes ended before the header did: more of the file may hold it */
        public HeaderException(String message, boolean truncated) {
            this(message, truncated, false);
        }

        private HeaderException(String message, boolean truncated, boolean overLimit) {
            super(message);
            this.truncated = truncated;
            this.overLimit = overLimit;
        }

        /**
         * A well-formed header describing more work than the gate lets a decoder do (more JPEG scans,
         * HEIF tiles, references or derivation levels than the limits): refused as too complex, not
         * as unreadable.
         */
        public static HeaderException overLimit(String message) {
            return new HeaderException(message, false, true);
        }

        /** True for {@link #overLimit(String)}. */
        public boolean overLimit() {
            return overLimit;
        }

        /** True when the data ran out before the header ended, rather than the header being malformed. */
        public boolean truncated() {
            return truncated;
        }
    }

    /**
     * Parses the header of {@code data}.
     *
     * @return null when the magic bytes match no accepted format
     * @throws HeaderException when the header is missing, truncated or has zero dimensions
     */
    public static ImageHeader read(byte[] data) throws HeaderException {
        return read(data, true);
    }

    /**
     * Whether {@code data} is a TIFF whose first page is in a Lab colour space (CIELab, ICCLab,
     * ITULab), which the worker refuses (docs/pipeline.md, "TIFF").
     */
    public static boolean tiffLab(byte[] data) {
        return ImageFormat.sniff(data) == ImageFormat.TIFF && TiffHeader.lab(ByteSource.of(data, true));
    }

    /**
     * Parses the header from the first bytes of a file (the ingest reads at most the first 512 KiB
     * of an upload). The end of a prefix says nothing about the file's: a JPEG's or PNG's
     * {@link #complete()} is false, unchecked, and its bytes are not walked for it.
     *
     * @return null when the magic bytes match no accepted format
     * @throws HeaderException when the header is missing, truncated or has zero dimensions
     */
    public static ImageHeader readPrefix(byte[] head) throws HeaderException {
        return read(head, false, ByteSource.of(head, false));
    }

    /**
     * As {@link #readPrefix(byte[])}, with the whole file at hand for the formats whose header may
     * lie past the prefix (TIFF's IFD, HEIF's meta box and its items' configuration, GIF frames,
     * JPEG scans): those read it from {@code file}, small positional reads or one 64 KiB window
     * walked along it, never the decoded pixels.
     *
     * @return null when the magic bytes match no accepted format
     * @throws HeaderException when the header is missing, truncated or has zero dimensions
     */
    public static ImageHeader readPrefix(byte[] head, ByteSource file) throws HeaderException {
        return read(head, false, file);
    }

    private static ImageHeader read(byte[] data, boolean checkEnd) throws HeaderException {
        return read(data, checkEnd, ByteSource.of(data, checkEnd));
    }

    private static ImageHeader read(byte[] data, boolean checkEnd, ByteSource src) throws HeaderException {
        ImageFormat format = ImageFormat.sniff(data);
        if (format == null) return null;
        ImageHeader h = switch (format) {
            case JPEG -> jpeg(data, checkEnd, src);
            case PNG -> png(data, checkEnd);
            case WEBP -> webp(data);
            case TIFF -> TiffHeader.read(src, checkEnd);
            case BMP -> BmpHeader.read(data, checkEnd);
            case GIF -> GifHeader.read(src, checkEnd);
            case HEIC, AVIF -> HeifHeader.read(src, format);
        };
        if (h.width <= 0 || h.height <= 0) throw new HeaderException(format.id() + " header gives no dimensions");
        return h;
    }

    /**
     * Most scans a JPEG may have (SOS markers, every scan of a progressive or multi-scan baseline
     * file): each scan is a pass of the decoder over the blocks it covers, so their number is a
     * multiple of the decode's work that the pixel count does not show. libjpeg-turbo's djpeg and
     * tjbench offer the same guard ({@code -maxscans}, TJPARAM_SCANLIMIT; 500 in its examples); real
     * encoders write 1 (baseline) or about 10 (libjpeg's progressive script).
     */
    public static final int MAX_JPEG_SCANS = 500;

    /**
     * The frame header of a JPEG: segments are walked by their lengths from the prefix {@code d},
     * and past it over {@code src}, reading each segment's header alone (metadata segments, ICC or XMP, may push
     * the frame header megabytes in): a header anywhere in the file is found without holding more
     * than the prefix and a few bytes.
     */
    private static ImageHeader jpeg(byte[] d, boolean checkEnd, ByteSource src) throws HeaderException {
        // Past the prefix only segment headers are read: 16 bytes at a time, not a 64 KiB window per jump.
        ByteWindow w = src.length() > d.length ? new ByteWindow(src, 16) : null;
        int orientation = 1;
        long i = 2;
        while (at(d, w, i + 3) >= 0) {
            if (at(d, w, i) != 0xFF) throw new HeaderException("jpeg: marker expected at byte " + i);
            int marker = at(d, w, i + 1);
            if (marker == 0xFF) { i++; continue; } // fill byte
            if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) { i += 2; continue; }
            if (marker == 0xD9 || marker == 0xDA) throw new HeaderException("jpeg: no frame header (SOF) found"); // EOI or scan before any SOF
            int len = (at(d, w, i + 2) << 8) | at(d, w, i + 3);
            if (len < 2) throw new HeaderException("jpeg: bad segment length at byte " + i);
            long seg = i + 4;
            if (marker == 0xE1) orientation = exif(d, src, seg, i + 2 + len, orientation);
            boolean sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
            if (sof) {
                if (at(d, w, seg + 4) < 0) throw new HeaderException("jpeg: truncated SOF segment", true);
                int height = (at(d, w, seg + 1) << 8) | at(d, w, seg + 2);
                int width = (at(d, w, seg + 3) << 8) | at(d, w, seg + 4);
                boolean progressive = marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE;
                int components = Math.max(0, at(d, w, seg + 5));
                boolean buffered = progressive || multiScan(new ByteWindow(src), i + 2 + len, components);
                return new ImageHeader(ImageFormat.JPEG, width, height, orientation, false, checkEnd && jpegComplete(d), progressive, 1,
                        false, false, buffered, (long) width * height);
            }
            i += 2 + len;
        }
        throw new HeaderException("jpeg: no frame header (SOF) found", true);
    }

    /** The byte at {@code pos}: from the prefix, else through the window over the file; -1 past the end. */
    private static int at(byte[] d, ByteWindow w, long pos) throws HeaderException {
        if (pos < d.length) return d[(int) pos] & 0xFF;
        return w == null ? -1 : w.at(pos);
    }

    /** The orientation an APP1 segment ({@code seg} to {@code end}) gives when it is Exif; {@code current} otherwise. */
    private static int exif(byte[] d, ByteSource src, long seg, long end, int current) throws HeaderException {
        if (end <= d.length) {
            int s = (int) seg;
            if (s + 6 <= d.length && d[s] == 'E' && d[s + 1] == 'x' && d[s + 2] == 'i' && d[s + 3] == 'f') return exifOrientation(d, s + 6, (int) end);
            return current;
        }
        // A segment past the prefix: read on its own (at most 64 KiB, a segment's largest).
        long stop = Math.min(end, src.length());
        if (stop - seg < 6) return current;
        byte[] b = src.read(seg, (int) (stop - seg));
        if (b[0] == 'E' && b[1] == 'x' && b[2] == 'i' && b[3] == 'f') return exifOrientation(b, 6, b.length);
        return current;
    }

    /**
     * Whether the JPEG's marker structure reaches EOI (FFD9): segments are skipped by their lengths,
     * entropy-coded data after each SOS up to the next marker that is not stuffing (FF00) or a
     * restart (FFD0–D7), as ITU T.81 §B.1.1 lays it out. Data appended after EOI (gain maps, phone
     * trailers) is allowed. Where the structure is lost before the end (fuzzed data), falls back to
     * looking for EOI near the tail and leaves the rest to the decoder.
     *
     * <p>A file that ends in EOI is complete without the walk (which reads every byte of the
     * entropy-coded data, in Java, for every job): truncation cuts the data off before its EOI. Only
     * a cut exactly after an FFD9 inside a segment that follows the frame header would pass, and the
     * decoder then fails or fills the rest.
     */
    static boolean jpegComplete(byte[] d) {
        if (d.length >= 4 && (d[d.length - 2] & 0xFF) == 0xFF && (d[d.length - 1] & 0xFF) == 0xD9) return true;
        int i = 2;
        while (true) {
            if (i + 2 > d.length) return false; // ran out before EOI: truncated
            if ((d[i] & 0xFF) != 0xFF) return eoiNearTail(d);
            int m = d[i + 1] & 0xFF;
            if (m == 0xFF) { i++; continue; }
            if (m == 0xD9) return true;
            if (m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) { i += 2; continue; }
            if (i + 4 > d.length) return false;
            int len = ((d[i + 2] & 0xFF) << 8) | (d[i + 3] & 0xFF);
            if (len < 2) return eoiNearTail(d);
            i += 2 + len;
            if (m == 0xDA) {
                while (i + 1 < d.length) {
                    if ((d[i] & 0xFF) == 0xFF) {
                        int n = d[i + 1] & 0xFF;
                        if (n == 0x00 || (n >= 0xD0 && n <= 0xD7)) { i += 2; continue; }
                        if (n != 0xFF) break;
                    }
                    i++;
                }
            }
        }
    }

    /**
     * Whether libjpeg decodes this frame in buffered-image mode, holding every coefficient of the
     * whole image: the file has more than one scan, or its first scan carries fewer components
     * than the frame ({@code has_multiple_scans}, libjpeg jdinput.c). Walks the markers after the
     * frame header as libjpeg reads them (garbage before a marker skipped, entropy-coded data up to
     * the next marker that is neither stuffing nor a restart), counting SOS markers up to EOI.
     *
     * @param from       the offset after the frame header
     * @param components the frame's component count (Nf)
     * @throws HeaderException (over the limit) past {@link #MAX_JPEG_SCANS} scans
     */
    static boolean multiScan(ByteWindow w, long from, int components) throws HeaderException {
        long pos = from;
        int scans = 0, firstComponents = -1;
        walk:
        while (true) {
            int b = w.at(pos);
            if (b < 0) break;
            if (b != 0xFF) { pos++; continue; } // extraneous bytes before a marker: libjpeg skips them
            int m = w.at(pos + 1);
            if (m < 0) break;
            if (m == 0xFF || m == 0x00) { pos += m == 0xFF ? 1 : 2; continue; }
            pos += 2;
            if (m == 0xD9) break; // EOI
            if (m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) continue;
            int len = w.u16(pos, false);
            if (len < 2) break;
            if (m == 0xDA) {
                scans++;
                if (firstComponents < 0) firstComponents = w.at(pos + 2);
                if (scans > MAX_JPEG_SCANS) throw HeaderException.overLimit("jpeg: more than " + MAX_JPEG_SCANS + " scans (SOS markers)");
                pos += len;
                while (true) { // entropy-coded data, up to the next 0xFF that is neither stuffing nor a restart
                    pos = w.nextFF(pos);
                    if (pos < 0) break walk;
                    int n = w.at(pos + 1);
                    if (n < 0) break walk;
                    if (n == 0x00 || (n >= 0xD0 && n <= 0xD7)) { pos += 2; continue; }
                    if (n != 0xFF) break;
                    pos++;
                }
                continue;
            }
            pos += len;
        }
        return scans > 1 || (firstComponents >= 0 && firstComponents < components);
    }

    private static boolean eoiNearTail(byte[] d) {
        for (int i = d.length - 2; i >= Math.max(2, d.length - 1024); i--) {
            if ((d[i] & 0xFF) == 0xFF && (d[i + 1] & 0xFF) == 0xD9) return true;
        }
        return false;
    }

    /** Whether walking the PNG's chunks by their lengths reaches IEND (data after it is allowed). */
    static boolean pngComplete(byte[] d) {
        long i = 8;
        while (i + 12 <= d.length) {
            int at = (int) i;
            long len = u32(d, at, false);
            if (d[at + 4] == 'I' && d[at + 5] == 'E' && d[at + 6] == 'N' && d[at + 7] == 'D') return true;
            i += 12 + len;
        }
        return false;
    }

    private static int exifOrientation(byte[] d, int tiff, int end) {
        if (tiff + 8 > end) return 1;
        boolean le = d[tiff] == 'I' && d[tiff + 1] == 'I';
        boolean be = d[tiff] == 'M' && d[tiff + 1] == 'M';
        if (!le && !be) return 1;
        long ifd = u32(d, tiff + 4, le);
        // Compare in long: an offset near 2^32 would wrap a narrowed int to a negative index.
        if (ifd < 8 || tiff + ifd + 2 > end) return 1;
        int p = (int) (tiff + ifd);
        int count = u16(d, p, le);
        for (int k = 0; k < count; k++) {
            int entry = p + 2 + 12 * k;
            if (entry + 12 > end) return 1;
            if (u16(d, entry, le) == 0x0112) {
                int v = u16(d, entry + 8, le);
                return v >= 1 && v <= 8 ? v : 1;
            }
        }
        return 1;
    }

    private static ImageHeader png(byte[] d, boolean checkEnd) throws HeaderException {
        if (d.length < 33 || d[12] != 'I' || d[13] != 'H' || d[14] != 'D' || d[15] != 'R') throw new HeaderException("png: IHDR chunk missing or truncated");
        long w = u32(d, 16, false);
        long h = u32(d, 20, false);
        if (w > Integer.MAX_VALUE || h > Integer.MAX_VALUE) throw new HeaderException("png: dimensions out of range");
        int colourType = d[25] & 0xFF; // 4 grey + alpha, 6 RGBA (PNG §11.2.2); tRNS is not looked for
        return new ImageHeader(ImageFormat.PNG, (int) w, (int) h, pngOrientation(d), false, checkEnd && pngComplete(d), false, 1,
                colourType == 4 || colourType == 6, false);
    }

    /**
     * EXIF orientation from a PNG eXIf chunk (PNG 3rd edition §11.3.6; allowed before IDAT only).
     * OpenCV's IMREAD_UNCHANGED, which PNG needs for alpha and 16 bits, ignores it.
     */
    private static int pngOrientation(byte[] d) {
        long i = 8;
        while (i + 12 <= d.length) {
            long len = u32(d, (int) i, false);
            int type = (int) i + 4;
            if (d[type] == 'I' && d[type + 1] == 'D' && d[type + 2] == 'A' && d[type + 3] == 'T') return 1;
            if (d[type] == 'e' && d[type + 1] == 'X' && d[type + 2] == 'I' && d[type + 3] == 'f') {
                long end = Math.min(d.length, i + 8 + len);
                return exifOrientation(d, (int) i + 8, (int) end);
            }
            i += 12 + len;
        }
        return 1;
    }

    /** EXIF orientation from the EXIF chunk of an extended (VP8X) WebP (RFC 9649 §2.7.1.5). */
    private static int webpOrientation(byte[] d) {
        long i = 30; // after RIFF header (12) and the VP8X chunk (8 + 10)
        while (i + 8 <= d.length) {
            int at = (int) i;
            long len = u32(d, at + 4, true);
            if (d[at] == 'E' && d[at + 1] == 'X' && d[at + 2] == 'I' && d[at + 3] == 'F') {
                int start = at + 8;
                // Some writers keep the JPEG APP1 "Exif\0\0" prefix in the chunk.
                if (start + 6 <= d.length && d[start] == 'E' && d[start + 1] == 'x' && d[start + 2] == 'i' && d[start + 3] == 'f') start += 6;
                return exifOrientation(d, start, (int) Math.min(d.length, i + 8 + len));
            }
            i += 8 + len + (len & 1);
        }
        return 1;
    }

    private static ImageHeader webp(byte[] d) throws HeaderException {
        if (d.length < 30) throw new HeaderException("webp: header truncated");
        String chunk = new String(d, 12, 4, java.nio.charset.StandardCharsets.US_ASCII);
        switch (chunk) {
            case "VP8 " -> {
                if ((d[23] & 0xFF) != 0x9D || (d[24] & 0xFF) != 0x01 || (d[25] & 0xFF) != 0x2A) throw new HeaderException("webp: bad VP8 start code");
                return new ImageHeader(ImageFormat.WEBP, u16le(d, 26) & 0x3FFF, u16le(d, 28) & 0x3FFF, 1, false, true);
            }
            case "VP8L" -> {
                if ((d[20] & 0xFF) != 0x2F) throw new HeaderException("webp: bad VP8L signature");
                long bits = u32(d, 21, true);
                int w = (int) (bits & 0x3FFF) + 1;
                int h = (int) ((bits >> 14) & 0x3FFF) + 1;
                return new ImageHeader(ImageFormat.WEBP, w, h, 1, false, true);
            }
            case "VP8X" -> {
                boolean animated = (d[20] & 0x02) != 0;
                int w = u24le(d, 24) + 1;
                int h = u24le(d, 27) + 1;
                int orientation = (d[20] & 0x08) != 0 ? webpOrientation(d) : 1;
                return new ImageHeader(ImageFormat.WEBP, w, h, orientation, animated, true, false, 1, (d[20] & 0x10) != 0, false);
            }
            default -> throw new HeaderException("webp: unknown first chunk '" + chunk.strip() + "'");
        }
    }

    private static int u16be(byte[] d, int i) throws HeaderException {
        if (i + 2 > d.length) throw new HeaderException("header truncated at byte " + i);
        return ((d[i] & 0xFF) << 8) | (d[i + 1] & 0xFF);
    }

    /** Unsigned 16-bit value at {@code i}, little- or big-endian; shared by the format parsers. */
    static int u16(byte[] d, int i, boolean le) {
        return le ? (d[i] & 0xFF) | ((d[i + 1] & 0xFF) << 8) : ((d[i] & 0xFF) << 8) | (d[i + 1] & 0xFF);
    }

    private static int u16le(byte[] d, int i) {
        return u16(d, i, true);
    }

    private static int u24le(byte[] d, int i) {
        return (d[i] & 0xFF) | ((d[i + 1] & 0xFF) << 8) | ((d[i + 2] & 0xFF) << 16);
    }

    /** Unsigned 32-bit value at {@code i}, little- or big-endian; shared by the format parsers. */
    static long u32(byte[] d, int i, boolean le) {
        long a = d[i] & 0xFF, b = d[i + 1] & 0xFF, c = d[i + 2] & 0xFF, e = d[i + 3] & 0xFF;
        return le ? a | (b << 8) | (c << 16) | (e << 24) : (a << 24) | (b << 16) | (c << 8) | e;
    }
}
