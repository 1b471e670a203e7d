package com.fairpix.core.image;

/**
 * A GIF's logical screen and its frames (GIF89a spec §18 logical screen descriptor, §20 image
 * descriptor, §15 data sub-blocks), walked block by block without decoding: the frame count
 * (animated when more than one) and the largest frame, which the pixel gate must see as the
 * decoder allocates each frame at its own size, whatever the logical screen says.
 *
 * <p>A walk that runs out of data between blocks, or meets an unknown block after a frame, counts
 * as complete (many real GIFs lack the trailer byte or carry junk after it); one that runs out
 * inside a block is truncated. On a prefix the walk stops where
 * the prefix does.
 */
final class GifHeader {
    private GifHeader() {}

    static ImageHeader read(byte[] d, boolean whole) throws ImageHeader.HeaderException {
        if (d.length < 13) throw new ImageHeader.HeaderException("gif: logical screen descriptor truncated", true);
        int screenW = ImageHeader.u16(d, 6, true), screenH = ImageHeader.u16(d, 8, true);
        int at = 13 + table(d[10]);
        int frames = 0;
        long maxW = screenW, maxH = screenH;
        boolean complete = false, transparent = false;
        walk:
        while (true) {
            if (at >= d.length) {
                complete = frames > 0; // ended between blocks: only the trailer is missing
                break;
            }
            int block = d[at] & 0xFF;
            switch (block) {
                case 0x3B -> {
                    complete = true;
                    break walk;
                }
                case 0x21 -> { // extension: label, then sub-blocks; a graphic control one may name a transparent index
                    if (at + 3 < d.length && (d[at + 1] & 0xFF) == 0xF9 && (d[at + 3] & 1) != 0) transparent = true;
                    at = subBlocks(d, at + 2);
                    if (at < 0) break walk;
                }
                case 0x2C -> {
                    if (at + 10 > d.length) break walk;
                    int w = ImageHeader.u16(d, at + 5, true), h = ImageHeader.u16(d, at + 7, true);
                    if (w == 0 || h == 0) throw new ImageHeader.HeaderException("gif: frame " + frames + " has size " + w + "x" + h);
                    maxW = Math.max(maxW, w);
                    maxH = Math.max(maxH, h);
                    frames++;
                    at = subBlocks(d, at + 10 + table(d[at + 9]) + 1); // + LZW minimum code size
                    if (at < 0) break walk;
                }
                default -> {
                    // Junk after a frame ends the image, as in browsers; before any frame it is no GIF.
                    if (frames == 0) throw new ImageHeader.HeaderException("gif: unknown block 0x" + Integer.toHexString(block) + " at byte " + at);
                    complete = true;
                    break walk;
                }
            }
        }
        if (frames == 0 && whole) throw new ImageHeader.HeaderException("gif: no image in the file", !complete);
        // The canvas: the logical screen, grown to the largest frame where a broken screen is smaller
        // (the decoder allocates each frame at its own size).
        return new ImageHeader(ImageFormat.GIF, (int) maxW, (int) maxH, 1, frames > 1, whole && complete, false,
                Math.max(frames, 1), transparent, false);
    }

    /** Bytes of a global or local colour table given its packed flags byte. */
    private static int table(byte flags) {
        return (flags & 0x80) != 0 ? 3 << ((flags & 7) + 1) : 0;
    }

    /** The offset after the sub-blocks starting at {@code at} and their terminator, or -1 when the data ends first. */
    private static int subBlocks(byte[] d, int at) {
        while (at < d.length) {
            int n = d[at] & 0xFF;
            if (n == 0) return at + 1;
            at += n + 1;
        }
        return -1;
    }

}
