package com.fairpix.core.image;

import java.util.Locale;

/** The formats fairpix accepts, recognised by their magic bytes, never by name or Content-Type. */
public enum ImageFormat {
    JPEG("image/jpeg", "jpg"),
    PNG("image/png", "png"),
    WEBP("image/webp", "webp");

    private final String contentType;
    private final String extension;

    ImageFormat(String contentType, String extension) {
        this.contentType = contentType;
        this.extension = extension;
    }

    public String contentType() { return contentType; }

    public String extension() { return extension; }

    /** Lower-case name as used in tenant {@code allowedFormats} and job JSON: jpeg, png, webp. */
    public String id() { return name().toLowerCase(Locale.ROOT); }

    /** The format the first bytes announce, or null for anything else (GIF, TIFF, text...). */
    public static ImageFormat sniff(byte[] data) {
        if (data.length >= 3 && (data[0] & 0xFF) == 0xFF && (data[1] & 0xFF) == 0xD8 && (data[2] & 0xFF) == 0xFF) return JPEG;
        if (data.length >= 8 && (data[0] & 0xFF) == 0x89 && data[1] == 'P' && data[2] == 'N' && data[3] == 'G'
                && data[4] == 0x0D && data[5] == 0x0A && data[6] == 0x1A && data[7] == 0x0A) return PNG;
        if (data.length >= 12 && data[0] == 'R' && data[1] == 'I' && data[2] == 'F' && data[3] == 'F'
                && data[8] == 'W' && data[9] == 'E' && data[10] == 'B' && data[11] == 'P') return WEBP;
        return null;
    }
}
