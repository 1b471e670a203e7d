package com.fairpix.core.image;

import java.nio.charset.StandardCharsets;

/**
 * The primary image of a HEIF file (HEIC, AVIF): its size from the {@code ispe} property and its
 * rotation and mirroring from {@code irot} and {@code imir}, found through {@code pitm} and
 * {@code ipma} in the {@code meta} box (ISO/IEC 14496-12 §4.2 box layout and §8.11 meta; ISO/IEC
 * 23008-12 §6.5.3 ispe, §6.5.10 irot, §6.5.12 imir, §9.3 ipma). Read through a {@link ByteSource}
 * so that the {@code mdat} box is skipped, never read. An image sequence ({@code moov} box, or the
 * {@code avis}/{@code msf1}/{@code hevc} major brand) is reported as animated.
 *
 * <p>HEIF's transformations, not EXIF's Orientation tag, orient the image (23008-12 §6.5.10; EXIF
 * inside a HEIF is informational). {@link ImageHeader#orientation()} gives the EXIF value with the
 * same effect, so that display sizes work as for every format.
 */
final class HeifHeader {
    private HeifHeader() {}

    /** Largest meta box read; real ones are a few kB (a grid photo's with hundreds of tiles ~20 kB). */
    private static final long MAX_META = 4L << 20;
    private static final int MAX_TOP_BOXES = 1024;

    static ImageHeader read(ByteSource src, ImageFormat format) throws ImageHeader.HeaderException {
        byte[] meta = null;
        boolean sequence = false;
        long at = 0;
        for (int boxes = 0; at + 8 <= src.length() && boxes < MAX_TOP_BOXES; boxes++) {
            byte[] h = src.read(at, 8);
            long size = ImageHeader.u32(h, 0, false);
            String type = new String(h, 4, 4, StandardCharsets.US_ASCII);
            int header = 8;
            if (size == 1) {
                size = u64(src.read(at + 8, 8), 0);
                header = 16;
            } else if (size == 0) {
                size = src.length() - at; // to the end of the file
            }
            if (size < header || size > src.length() - at && src.whole()) {
                throw new ImageHeader.HeaderException(format.id() + ": box '" + type.strip() + "' at byte " + at + " has size " + size + " (file: " + src.length() + " bytes)");
            }
            if (type.equals("ftyp") && at == 0) {
                if (size < 16) throw new ImageHeader.HeaderException(format.id() + ": ftyp box of " + size + " bytes");
                byte[] ftyp = src.read(at, (int) Math.min(size, 64));
                String major = new String(ftyp, 8, 4, StandardCharsets.US_ASCII);
                sequence |= major.equals("avis") || major.equals("msf1") || major.equals("hevc") || major.equals("hevx");
            } else if (type.equals("moov")) {
                sequence = true;
            } else if (type.equals("meta")) {
                if (size > MAX_META) throw new ImageHeader.HeaderException(format.id() + ": meta box of " + size + " bytes");
                meta = src.read(at + header, (int) (size - header));
            }
            if (size > src.length() - at) break; // a prefix: the rest of the file is not here
            at += size;
        }
        if (meta == null) throw new ImageHeader.HeaderException(format.id() + ": no meta box", !src.whole());
        return primary(meta, format, sequence);
    }

    private static ImageHeader primary(byte[] meta, ImageFormat format, boolean sequence) throws ImageHeader.HeaderException {
        // meta is a FullBox: version and flags, then child boxes.
        long primaryId = -1;
        byte[] ipco = null, ipma = null;
        for (int at = 4; at + 8 <= meta.length; ) {
            long size = ImageHeader.u32(meta, at, false);
            String type = new String(meta, at + 4, 4, StandardCharsets.US_ASCII);
            if (size < 8 || at + size > meta.length) break;
            // First wins, as in libheif: a second pitm or ipco must not redirect the gate.
            if (type.equals("pitm") && size >= 14 && primaryId < 0) {
                primaryId = meta[at + 8] == 0 ? ImageHeader.u16(meta, at + 12, false) : (size >= 16 ? ImageHeader.u32(meta, at + 12, false) : -1);
            } else if (type.equals("iprp")) {
                for (int c = at + 8; c + 8 <= at + size; ) {
                    long cs = ImageHeader.u32(meta, c, false);
                    if (cs < 8 || c + cs > at + size) break;
                    String ct = new String(meta, c + 4, 4, StandardCharsets.US_ASCII);
                    if (ct.equals("ipco") && ipco == null) ipco = java.util.Arrays.copyOfRange(meta, c + 8, (int) (c + cs));
                    if (ct.equals("ipma") && ipma == null) ipma = java.util.Arrays.copyOfRange(meta, c + 8, (int) (c + cs));
                    c += (int) cs;
                }
            }
            at += (int) size;
        }
        if (primaryId < 0) throw new ImageHeader.HeaderException(format.id() + ": no primary item (pitm)");
        if (ipco == null || ipma == null) throw new ImageHeader.HeaderException(format.id() + ": no item properties (iprp/ipco/ipma)");
        int[] props = associations(ipma, primaryId);
        if (props == null) throw new ImageHeader.HeaderException(format.id() + ": primary item " + primaryId + " has no properties");
        long width = 0, height = 0;
        int orientation = 1;
        for (int index : props) {
            int p = property(ipco, index);
            if (p < 0) continue;
            String type = new String(ipco, p + 4, 4, StandardCharsets.US_ASCII);
            long size = ImageHeader.u32(ipco, p, false);
            switch (type) {
                case "ispe" -> {
                    if (size >= 20 && width == 0) {
                        width = ImageHeader.u32(ipco, p + 12, false);
                        height = ImageHeader.u32(ipco, p + 16, false);
                    }
                }
                case "irot" -> { if (size >= 9) orientation = Orientation.then(orientation, Orientation.ROTATE[ipco[p + 8] & 3]); }
                // libheif reads axis 0 as a top-bottom flip (heif_transform_mirror_direction_vertical);
                // only the decoder's reading matters, as it applies the transformations.
                case "imir" -> { if (size >= 9) orientation = Orientation.then(orientation, (ipco[p + 8] & 1) == 0 ? 4 : 2); }
                default -> { }
            }
        }
        if (width <= 0 || height <= 0 || width > Integer.MAX_VALUE || height > Integer.MAX_VALUE) {
            throw new ImageHeader.HeaderException(format.id() + ": primary item has no image size (ispe)");
        }
        return new ImageHeader(format, (int) width, (int) height, orientation, sequence, true, false, 1, false, false);
    }

    /** The 1-based ipco indices associated with {@code item}, in order (the order transformations apply), or null. */
    private static int[] associations(byte[] ipma, long item) {
        if (ipma.length < 8) return null;
        int version = ipma[0];
        boolean wide = (ipma[3] & 1) != 0;
        long entries = ImageHeader.u32(ipma, 4, false);
        int at = 8;
        for (long k = 0; k < entries; k++) {
            int idBytes = version < 1 ? 2 : 4;
            if (at + idBytes + 1 > ipma.length) return null;
            long id = idBytes == 2 ? ImageHeader.u16(ipma, at, false) : ImageHeader.u32(ipma, at, false);
            int n = ipma[at + idBytes] & 0xFF;
            at += idBytes + 1;
            int[] out = new int[n];
            for (int j = 0; j < n; j++) {
                if (at + (wide ? 2 : 1) > ipma.length) return null;
                out[j] = wide ? ImageHeader.u16(ipma, at, false) & 0x7FFF : ipma[at] & 0x7F;
                at += wide ? 2 : 1;
            }
            if (id == item) return out;
        }
        return null;
    }

    /** Offset in ipco of the property with this 1-based index, or -1. */
    private static int property(byte[] ipco, int index) {
        int at = 0;
        for (int i = 1; at + 8 <= ipco.length; i++) {
            long size = ImageHeader.u32(ipco, at, false);
            if (size < 8 || at + size > ipco.length) return -1;
            if (i == index) return at;
            at += (int) size;
        }
        return -1;
    }



    private static long u64(byte[] d, int i) {
        return (ImageHeader.u32(d, i, false) << 32) | ImageHeader.u32(d, i + 4, false);
    }
}
