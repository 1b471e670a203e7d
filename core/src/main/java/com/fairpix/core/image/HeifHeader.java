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
 * <p>What the decoder will allocate is bounded through the item graph ({@link HeifItems}): the
 * primary item's derivation ({@code grid}, {@code iden}, {@code iovl} through {@code dimg}
 * references, 23008-12 §6.6) down to its coded items, each with an {@code ispe}, an AV1 item's
 * sequence header no larger than its {@code ispe}, a grid whose tiles cover its canvas, no cycle, no
 * more than {@link #MAX_REFERENCES} references from an item and {@link #MAX_DEPTH} levels.
 *
 * <p>HEIF's transformations, not EXIF's Orientation tag, orient the image (23008-12 §6.5.10; EXIF
 * inside a HEIF is informational). {@link ImageHeader#orientation()} gives the EXIF value with the
 * same effect, so that display sizes work as for every format.
 */
final class HeifHeader {
    private HeifHeader() {}

    /** Deepest derivation below the primary item (a grid of coded tiles is 1, an iden of that grid 2). */
    static final int MAX_DEPTH = 4;
    /**
     * Most references from one derived item (a grid's tiles, an overlay's layers): a 48 MP phone photo
     * has 192 tiles of 512x512, a 200 MP one 768.
     */
    static final int MAX_REFERENCES = 1024;

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
            } else if (type.equals("meta") && meta == null) {
                if (size > MAX_META) throw new ImageHeader.HeaderException(format.id() + ": meta box of " + size + " bytes");
                meta = src.read(at + header, (int) (size - header));
            }
            if (size > src.length() - at) break; // a prefix: the rest of the file is not here
            at += size;
        }
        if (meta == null) throw new ImageHeader.HeaderException(format.id() + ": no meta box", !src.whole());
        HeifItems items = HeifItems.parse(meta, format, src);
        HeifItems.Bound primary = items.primaryBound();
        long[] ispe = primary.ispe();
        int orientation = 1;
        for (byte[] p : items.properties(items.primary())) {
            String type = new String(p, 4, 4, StandardCharsets.US_ASCII);
            switch (type) {
                case "irot" -> { if (p.length >= 9) orientation = Orientation.then(orientation, Orientation.ROTATE[p[8] & 3]); }
                // libheif reads axis 0 as a top-bottom flip (heif_transform_mirror_direction_vertical);
                // only the decoder's reading matters, as it applies the transformations.
                case "imir" -> { if (p.length >= 9) orientation = Orientation.then(orientation, (p[8] & 1) == 0 ? 4 : 2); }
                default -> { }
            }
        }
        int w = (int) ispe[0], h = (int) ispe[1];
        return new ImageHeader(format, w, h, orientation, sequence, true, false, 1, false, false, false,
                Math.max((long) w * h, primary.decoded()));
    }

    static long u64(byte[] d, int i) {
        return (ImageHeader.u32(d, i, false) << 32) | ImageHeader.u32(d, i + 4, false);
    }
}
