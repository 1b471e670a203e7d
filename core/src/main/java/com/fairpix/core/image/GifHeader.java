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
 * the prefix does; the ingest walks the whole upload (a frame may start anywhere: a 670 kB file
 * whose 10000x10000 frame starts at byte 602,375 read as 1x1 from its first 512 KiB).
 */
final class GifHeader {
    private GifHeader() {}

    static ImageHeader read(byte[] d, boolean whole) throws ImageHeader.HeaderException {
        return read(ByteSource.of(d, whole), whole);
    }

    /**
     * Walks every block of {@code src} (through a 64 KiB window: a frame may start anywhere in the
     * file, past any prefix the ingest reads first).
     *
     * @param checkEnd whether {@link ImageHeader#complete()} is to be judged; a prefix is never complete
     */
    static ImageHeader read(ByteSource src, boolean checkEnd) throws ImageHeader.HeaderException {
        ByteWindow d = new ByteWindow(src);
        boolean whole = src.whole();
        if (d.length() < 13) throw new ImageHeader.HeaderException("gif: logical screen descriptor truncated", true);
        int screenW = d.u16(6, true), screenH = d.u16(8, true);
        long at = 13 + table(d.at(10));
        int frames = 0;
        long maxW = screenW, maxH = screenH;
        boolean complete = false, transparent = false;
        walk:
        while (true) {
            if (at >= d.length()) {
                complete = frames > 0; // ended between blocks: only the trailer is missing
                break;
            }
            int block = d.at(at);
            switch (block) {
                case 0x3B -> {
                    complete = true;
                    break walk;
                }
                case 0x21 -> { // extension: label, then sub-blocks; a graphic control one may name a transparent index
                    if (at + 3 < d.length() && d.at(at + 1) == 0xF9 && (d.at(at + 3) & 1) != 0) transparent = true;
                    at = subBlocks(d, at + 2);
                    if (at < 0) break walk;
                }
                case 0x2C -> {
                    if (at + 10 > d.length()) break walk;
                    int w = d.u16(at + 5, true), h = d.u16(at + 7, true);
                    if (w == 0 || h == 0) throw new ImageHeader.HeaderException("gif: frame " + frames + " has size " + w + "x" + h);
                    maxW = Math.max(maxW, w);
                    maxH = Math.max(maxH, h);
                    frames++;
                    at = subBlocks(d, at + 10 + table(d.at(at + 9)) + 1); // + LZW minimum code size
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
        return new ImageHeader(ImageFormat.GIF, (int) maxW, (int) maxH, 1, frames > 1, checkEnd && whole && complete, false,
                Math.max(frames, 1), transparent, false);
    }

    /** Bytes of a global or local colour table given its packed flags byte. */
    private static int table(int flags) {
        return (flags & 0x80) != 0 ? 3 << ((flags & 7) + 1) : 0;
    }

    /** The offset after the sub-blocks starting at {@code at} and their terminator, or -1 when the data ends first. */
    private static long subBlocks(ByteWindow d, long at) throws ImageHeader.HeaderException {
        while (at < d.length()) {
            int n = d.at(at);
            if (n == 0) return at + 1;
            at += n + 1;
        }
        return -1;
    }

}
