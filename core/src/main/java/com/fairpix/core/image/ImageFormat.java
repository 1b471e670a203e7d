package com.fairpix.core.image;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The formats fairpix reads, recognised by their magic bytes, never by name or Content-Type, and
 * the ones it writes ({@link #writable()}). The one list of formats: tenants' {@code allowedFormats}
 * and encode steps' {@code format} are checked against it.
 *
 * <p>Signatures: JPEG SOI (ITU T.81 §B.1.1.2); PNG signature (PNG spec §5.2); WebP RIFF/WEBP
 * (RFC 9649 §2); TIFF byte-order mark and 42 (TIFF 6.0 §2, classic TIFF only, not BigTIFF); BMP
 * "BM" with a known DIB header size; GIF87a/GIF89a; HEIC and AVIF by the brands of the ISO BMFF
 * {@code ftyp} box (ISO/IEC 23008-12 Annex B for HEIC, AV1 Image File Format §9 for AVIF).
 */
public enum ImageFormat {
    JPEG("image/jpeg", "jpg", true),
    PNG("image/png", "png", true),
    WEBP("image/webp", "webp", true),
    TIFF("image/tiff", "tif", false),
    BMP("image/bmp", "bmp", false),
    GIF("image/gif", "gif", false),
    /** HEIF with HEVC-coded images (iPhone photos), and other HEIF brands libheif reads. */
    HEIC("image/heic", "heic", false),
    AVIF("image/avif", "avif", true);

    private final String contentType;
    private final String extension;
    private final boolean writable;

    ImageFormat(String contentType, String extension, boolean writable) {
        this.contentType = contentType;
        this.extension = extension;
        this.writable = writable;
    }

    public String contentType() { return contentType; }

    public String extension() { return extension; }

    /** True when an encode step may name it: fairpix writes it (AVIF where the worker has libheif's AV1 encoder). */
    public boolean writable() { return writable; }

    /** Lower-case name as used in tenant {@code allowedFormats}: jpeg, png, webp, tiff, bmp, gif, heic, avif. */
    public String id() { return name().toLowerCase(Locale.ROOT); }

    /** Every format's {@link #id()}, in declaration order. */
    public static final List<String> IDS = Arrays.stream(values()).map(ImageFormat::id).toList();

    /** The {@link #id()} of every {@link #writable()} format, in declaration order: jpeg, png, webp, avif. */
    public static final List<String> WRITABLE_IDS = Arrays.stream(values()).filter(ImageFormat::writable).map(ImageFormat::id).toList();

    /** The format with this {@link #id()} (case-insensitive; "jpg", "tif" and "heif" accepted), or null. */
    public static ImageFormat byId(String id) {
        if (id == null) return null;
        String s = id.toLowerCase(Locale.ROOT);
        return switch (s) {
            case "jpg" -> JPEG;
            case "tif" -> TIFF;
            case "heif" -> HEIC;
            default -> Arrays.stream(values()).filter(f -> f.id().equals(s)).findFirst().orElse(null);
        };
    }

    /** The format the first bytes announce, or null for anything else (JPEG 2000, SVG, text...). */
    public static ImageFormat sniff(byte[] data) {
        if (data.length >= 3 && (data[0] & 0xFF) == 0xFF && (data[1] & 0xFF) == 0xD8 && (data[2] & 0xFF) == 0xFF) return JPEG;
        if (data.length >= 8 && (data[0] & 0xFF) == 0x89 && data[1] == 'P' && data[2] == 'N' && data[3] == 'G'
                && data[4] == 0x0D && data[5] == 0x0A && data[6] == 0x1A && data[7] == 0x0A) return PNG;
        if (data.length >= 12 && data[0] == 'R' && data[1] == 'I' && data[2] == 'F' && data[3] == 'F'
                && data[8] == 'W' && data[9] == 'E' && data[10] == 'B' && data[11] == 'P') return WEBP;
        if (data.length >= 8 && ((data[0] == 'I' && data[1] == 'I' && data[2] == 42 && data[3] == 0)
                || (data[0] == 'M' && data[1] == 'M' && data[2] == 0 && data[3] == 42))) return TIFF;
        if (data.length >= 6 && data[0] == 'G' && data[1] == 'I' && data[2] == 'F' && data[3] == '8'
                && (data[4] == '7' || data[4] == '9') && data[5] == 'a') return GIF;
        if (data.length >= 26 && data[0] == 'B' && data[1] == 'M') {
            long dib = (data[14] & 0xFF) | ((data[15] & 0xFF) << 8) | ((data[16] & 0xFF) << 16) | ((long) (data[17] & 0xFF) << 24);
            if (dib == 12 || dib == 16 || dib == 40 || dib == 52 || dib == 56 || dib == 64 || dib == 108 || dib == 124) return BMP;
        }
        return heifBrand(data);
    }

    /** AVIF or HEIC by the ftyp box's major and compatible brands; AVIF wins when both appear. */
    private static ImageFormat heifBrand(byte[] d) {
        if (d.length < 16 || d[4] != 'f' || d[5] != 't' || d[6] != 'y' || d[7] != 'p') return null;
        long size = ((long) (d[0] & 0xFF) << 24) | ((d[1] & 0xFF) << 16) | ((d[2] & 0xFF) << 8) | (d[3] & 0xFF);
        int end = (int) Math.min(d.length, Math.max(16, Math.min(size, 4096)));
        boolean heic = false;
        for (int i = 8; i + 4 <= end; i += 4) {
            if (i == 12) continue; // minor_version, not a brand
            String brand = new String(d, i, 4, java.nio.charset.StandardCharsets.US_ASCII);
            switch (brand) {
                case "avif", "avis" -> { return AVIF; }
                case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1" -> heic = true;
                default -> { }
            }
        }
        return heic ? HEIC : null;
    }
}
