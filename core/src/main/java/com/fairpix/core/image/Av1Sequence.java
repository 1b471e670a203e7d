package com.fairpix.core.image;

/**
 * The largest frame an AV1 stream may code, from its sequence header OBU (AV1 bitstream
 * specification §5.3 OBU syntax, §5.5 sequence header: {@code max_frame_width_minus_1},
 * {@code max_frame_height_minus_1}). A decoder allocates frames up to that size whatever the
 * container says (dav1d refuses a frame header larger than it, not smaller).
 */
final class Av1Sequence {
    private Av1Sequence() {}

    private static final int OBU_SEQUENCE_HEADER = 1;

    /**
     * The maximum frame width and height of the first sequence header among the OBUs in
     * {@code d[from, to)}, or null when there is none (the OBUs end, or stop parsing, first).
     */
    static long[] maxFrameSize(byte[] d, int from, int to) {
        int at = from;
        for (int obus = 0; at < to && obus < 64; obus++) {
            int header = d[at] & 0xFF;
            if ((header & 0x80) != 0) return null; // forbidden bit
            int type = (header >> 3) & 15;
            boolean extension = (header & 4) != 0, hasSize = (header & 2) != 0;
            at += extension ? 2 : 1;
            long size;
            if (hasSize) {
                size = 0;
                int i = 0;
                while (true) {
                    if (at >= to || i >= 8) return null;
                    int b = d[at++] & 0xFF;
                    size |= (long) (b & 0x7F) << (7 * i++);
                    if ((b & 0x80) == 0) break;
                }
            } else {
                size = to - at;
            }
            if (size < 0 || size > to - at) size = to - at; // the part we have; the header comes first
            if (type == OBU_SEQUENCE_HEADER) return sequenceHeader(new BitReader(d, at, (int) (at + size)));
            at += (int) size;
        }
        return null;
    }

    private static long[] sequenceHeader(BitReader b) {
        try {
            b.skip(3); // seq_profile
            b.skip(1); // still_picture
            boolean reduced = b.flag();
            if (reduced) {
                b.skip(5); // seq_level_idx[0]
            } else {
                boolean timing = b.flag();
                boolean decoderModel = false;
                int bufferDelayLength = 0;
                if (timing) {
                    b.skip(32); // num_units_in_display_tick
                    b.skip(32); // time_scale
                    if (b.flag()) b.uvlc(); // equal_picture_interval: num_ticks_per_picture_minus_1
                    decoderModel = b.flag();
                    if (decoderModel) {
                        bufferDelayLength = (int) b.bits(5) + 1;
                        b.skip(32); // num_units_in_decoding_tick
                        b.skip(5); // buffer_removal_time_length_minus_1
                        b.skip(5); // frame_presentation_time_length_minus_1
                    }
                }
                boolean initialDisplayDelay = b.flag();
                int points = (int) b.bits(5) + 1;
                for (int i = 0; i < points; i++) {
                    b.skip(12); // operating_point_idc
                    int level = (int) b.bits(5);
                    if (level > 7) b.skip(1); // seq_tier
                    if (decoderModel && b.flag()) {
                        b.skip(bufferDelayLength); // decoder_buffer_delay
                        b.skip(bufferDelayLength); // encoder_buffer_delay
                        b.skip(1); // low_delay_mode_flag
                    }
                    if (initialDisplayDelay && b.flag()) b.skip(4);
                }
            }
            int widthBits = (int) b.bits(4) + 1, heightBits = (int) b.bits(4) + 1;
            long w = b.bits(widthBits) + 1, h = b.bits(heightBits) + 1;
            return new long[] {w, h};
        } catch (IndexOutOfBoundsException e) {
            return null; // the header ends early: no size from it
        }
    }
}
