package com.fairpix.core.image;

/**
 * EXIF orientation values 1–8 (CIPA DC-008 tag 0x0112) as transformations of the stored pixels,
 * and their composition: the eight form the dihedral group of the rectangle's symmetries.
 */
final class Orientation {
    private Orientation() {}

    /** The EXIF value for an anti-clockwise rotation by index × 90° (HEIF irot's angle). */
    static final int[] ROTATE = {1, 8, 3, 6};

    /** The orientation that does {@code first}, then {@code second}. */
    static int then(int first, int second) {
        int[][] probe = {{0, 1, 2}, {3, 4, 5}}; // 2x3 so that a transposition shows
        int[][] want = apply(apply(probe, first), second);
        for (int o = 1; o <= 8; o++) {
            if (java.util.Arrays.deepEquals(apply(probe, o), want)) return o;
        }
        throw new IllegalStateException("orientations are closed under composition");
    }

    /** What {@code o} does to a grid of pixels (same definitions as the worker's Orient step). */
    static int[][] apply(int[][] g, int o) {
        int h = g.length, w = g[0].length;
        boolean swap = o >= 5;
        int[][] out = new int[swap ? w : h][swap ? h : w];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int v = g[y][x];
                switch (o) {
                    case 1 -> out[y][x] = v;
                    case 2 -> out[y][w - 1 - x] = v;          // left-right mirror
                    case 3 -> out[h - 1 - y][w - 1 - x] = v;  // 180°
                    case 4 -> out[h - 1 - y][x] = v;          // top-bottom mirror
                    case 5 -> out[x][y] = v;                  // transpose
                    case 6 -> out[x][h - 1 - y] = v;          // 90° clockwise
                    case 7 -> out[w - 1 - x][h - 1 - y] = v;  // transverse
                    case 8 -> out[w - 1 - x][y] = v;          // 90° anti-clockwise
                    default -> throw new IllegalArgumentException("orientation " + o);
                }
            }
        }
        return out;
    }
}
