package com.fairpix.core.image;

/**
 * The coded picture size of an HEVC stream, from its sequence parameter set (ITU-T H.265
 * §7.3.2.2: {@code pic_width_in_luma_samples}, {@code pic_height_in_luma_samples}): what libde265
 * allocates a picture at, whatever the container's {@code ispe} says. Found in an {@code hvcC}
 * box's NAL arrays (ISO/IEC 14496-15 §8.3.3.1) or among the length-prefixed NAL units at the
 * start of an item's data (libheif hands the decoder both).
 */
final class HevcSps {
    private HevcSps() {}

    private static final int NAL_SPS = 33;

    /** The coded size from the SPS in an {@code hvcC} box (the whole box), or null when there is none. */
    static long[] fromConfig(byte[] box) {
        int at = 8 + 22;
        if (at >= box.length) return null;
        int arrays = box[at++] & 0xFF;
        for (int a = 0; a < arrays && at + 3 <= box.length; a++) {
            int type = box[at] & 0x3F;
            int count = ImageHeader.u16(box, at + 1, false);
            at += 3;
            for (int n = 0; n < count && at + 2 <= box.length; n++) {
                int len = ImageHeader.u16(box, at, false);
                at += 2;
                if (at + len > box.length) return null;
                if (type == NAL_SPS) return size(box, at, at + len);
                at += len;
            }
        }
        return null;
    }

    /** The length-prefix size of an {@code hvcC} box's NAL units (1, 2 or 4), or 4 when it cannot be read. */
    static int lengthSize(byte[] box) {
        return box.length > 8 + 21 ? (box[8 + 21] & 3) + 1 : 4;
    }

    /** The coded size from the first SPS among the length-prefixed NAL units of {@code d}, or null. */
    static long[] fromData(byte[] d, int lengthSize) {
        int at = 0;
        for (int n = 0; n < 64 && at + lengthSize <= d.length; n++) {
            long len = 0;
            for (int i = 0; i < lengthSize; i++) len = (len << 8) | (d[at + i] & 0xFF);
            at += lengthSize;
            if (len < 2) return null;
            int end = (int) Math.min(d.length, at + len);
            if (((d[at] >> 1) & 0x3F) == NAL_SPS) return size(d, at, end);
            if (at + len > d.length) return null;
            at += (int) len;
        }
        return null;
    }

    /** pic_width/height_in_luma_samples of the SPS NAL unit {@code d[from, to)} (2-byte NAL header first), or null. */
    static long[] size(byte[] d, int from, int to) {
        // The RBSP: without emulation prevention bytes (00 00 03 → 00 00).
        byte[] rbsp = new byte[Math.max(0, to - from - 2)];
        int n = 0, zeros = 0;
        for (int i = from + 2; i < to; i++) {
            int b = d[i] & 0xFF;
            if (zeros >= 2 && b == 3) {
                zeros = 0;
                continue;
            }
            zeros = b == 0 ? zeros + 1 : 0;
            rbsp[n++] = (byte) b;
        }
        try {
            BitReader r = new BitReader(rbsp, 0, n);
            r.bits(4); // sps_video_parameter_set_id
            int subLayers = (int) r.bits(3); // sps_max_sub_layers_minus1
            r.bits(1); // sps_temporal_id_nesting_flag
            r.bits(88); // general profile
            r.bits(8); // general_level_idc
            boolean[] profile = new boolean[subLayers], level = new boolean[subLayers];
            for (int i = 0; i < subLayers; i++) {
                profile[i] = r.bits(1) != 0;
                level[i] = r.bits(1) != 0;
            }
            if (subLayers > 0) for (int i = subLayers; i < 8; i++) r.bits(2);
            for (int i = 0; i < subLayers; i++) {
                if (profile[i]) r.bits(88);
                if (level[i]) r.bits(8);
            }
            r.ue(); // sps_seq_parameter_set_id
            long chroma = r.ue();
            if (chroma == 3) r.bits(1); // separate_colour_plane_flag
            long w = r.ue(), h = r.ue();
            return new long[] {w, h};
        } catch (IndexOutOfBoundsException e) {
            return null;
        }
    }
}
