package com.fairpix.core.image;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Small crafted images whose headers hide what their decoders will do (issue 33), built in code:
 * a GIF whose large frame starts after the ingest's first 512 KiB, baseline JPEGs with several
 * scans, and HEIF files with an item graph ({@link Heif}). Shared with the worker's and the
 * integration tests through core's test-jar.
 */
public final class HostileImages {
    private HostileImages() {}

    /**
     * A still GIF: a {@code screenW}x{@code screenH} logical screen, a comment extension of
     * {@code padding} bytes, then one {@code w}x{@code h} frame (no colour table; its LZW data is a
     * clear code and an end code, which the JDK's reader accepts, leaving the frame blank).
     */
    public static byte[] gifWithLateFrame(int screenW, int screenH, int padding, int w, int h) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes("GIF89a".getBytes(StandardCharsets.US_ASCII));
        le16(out, screenW);
        le16(out, screenH);
        out.write(0x80); // global colour table of 2 entries
        out.write(0);
        out.write(0);
        out.writeBytes(new byte[] {0, 0, 0, (byte) 255, (byte) 255, (byte) 255});
        out.write(0x21);
        out.write(0xFE); // comment
        for (int left = padding; left > 0; ) {
            int n = Math.min(255, left);
            out.write(n);
            out.writeBytes(new byte[n]);
            left -= n;
        }
        out.write(0);
        out.write(0x2C);
        le16(out, 0);
        le16(out, 0);
        le16(out, w);
        le16(out, h);
        out.write(0);
        out.write(2); // LZW minimum code size
        out.write(1);
        out.write(0x2C); // clear (4) then end (5), 3 bits each: 100 101 -> 0b00101100
        out.write(0);
        out.write(0x3B);
        return out.toByteArray();
    }

    private static void le16(ByteArrayOutputStream out, int v) {
        out.write(v & 0xFF);
        out.write((v >> 8) & 0xFF);
    }

    /**
     * A grey-mid baseline (SOF0) JPEG of three components without subsampling. {@code scans} lists
     * each scan's components (indices 0–2): {@code {{0, 1, 2}}} is the usual one interleaved scan,
     * {@code {{0}, {1}, {2}}} three non-interleaved scans, which libjpeg decodes in buffered-image
     * mode. Every block codes DC difference 0 and end-of-block, with one-code Huffman tables.
     */
    public static byte[] baselineJpeg(int width, int height, int[]... scans) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xD8});
        // DQT: table 0, all ones.
        marker(out, 0xDB, 67);
        out.write(0);
        for (int i = 0; i < 64; i++) out.write(1);
        // SOF0: 8 bits, height, width, 3 components, 1x1 sampling, table 0.
        marker(out, 0xC0, 17);
        out.write(8);
        out.write(height >> 8);
        out.write(height & 0xFF);
        out.write(width >> 8);
        out.write(width & 0xFF);
        out.write(3);
        for (int c = 1; c <= 3; c++) {
            out.write(c);
            out.write(0x11);
            out.write(0);
        }
        // DHT: DC table 0 and AC table 0, one code of length 1 each (symbol 0: category 0 / EOB).
        for (int tableClass : new int[] {0x00, 0x10}) {
            marker(out, 0xC4, 2 + 17 + 1);
            out.write(tableClass);
            out.write(1);
            for (int i = 1; i < 16; i++) out.write(0);
            out.write(0);
        }
        long blocks = (long) ((width + 7) / 8) * ((height + 7) / 8);
        for (int[] scan : scans) {
            marker(out, 0xDA, 6 + 2 * scan.length);
            out.write(scan.length);
            for (int c : scan) {
                out.write(c + 1);
                out.write(0x00);
            }
            out.write(0);
            out.write(63);
            out.write(0);
            // 2 bits per block ("0" DC, "0" EOB): all zero bytes, the last padded with ones.
            long bits = 2 * blocks * scan.length;
            long bytes = (bits + 7) / 8;
            out.writeBytes(new byte[(int) (bytes - 1)]);
            int used = (int) (bits - (bytes - 1) * 8);
            out.write((1 << (8 - used)) - 1);
        }
        out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xD9});
        return out.toByteArray();
    }

    private static void marker(ByteArrayOutputStream out, int marker, int length) {
        out.write(0xFF);
        out.write(marker);
        out.write(length >> 8);
        out.write(length & 0xFF);
    }

    /** {@code n} scans of the first component only: a baseline file libjpeg passes over {@code n} times. */
    public static byte[] baselineJpegWithScans(int width, int height, int n) {
        int[][] scans = new int[n][];
        for (int i = 0; i < n; i++) scans[i] = new int[] {i % 3};
        return baselineJpeg(width, height, scans);
    }

    /**
     * An AV1 sequence header OBU (reduced still-picture header) allowing frames up to
     * {@code maxW}x{@code maxH}, with a size field: what av1C's configOBUs or an item's data start with.
     */
    public static byte[] av1SequenceHeader(int maxW, int maxH) {
        Bits b = new Bits();
        b.put(0, 3); // seq_profile
        b.put(1, 1); // still_picture
        b.put(1, 1); // reduced_still_picture_header
        b.put(31, 5); // seq_level_idx[0]
        int wb = Math.max(1, 32 - Integer.numberOfLeadingZeros(maxW - 1)), hb = Math.max(1, 32 - Integer.numberOfLeadingZeros(maxH - 1));
        b.put(wb - 1, 4);
        b.put(hb - 1, 4);
        b.put(maxW - 1, wb);
        b.put(maxH - 1, hb);
        b.put(0, 3); // frame_id_numbers_present, use_128x128, enable_filter_intra... (rest left zero)
        byte[] payload = b.bytes(4);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0x0A); // OBU_SEQUENCE_HEADER, has_size_field
        out.write(payload.length);
        out.writeBytes(payload);
        return out.toByteArray();
    }

    /** An av1C property box whose configOBUs are {@code obus}. */
    public static byte[] av1C(byte[] obus) {
        return Heif.box("av1C", concat(new byte[] {(byte) 0x81, 0x1F, 0x0C, 0}, obus));
    }

    /**
     * An hvcC box whose one NAL array holds an SPS coding {@code w}x{@code h} pictures (4:2:0, one
     * sub-layer, the rest of the SPS left out: only its start is read by the gate).
     */
    public static byte[] hvcC(int w, int h) {
        Bits b = new Bits();
        b.put(0, 4); // sps_video_parameter_set_id
        b.put(0, 3); // sps_max_sub_layers_minus1
        b.put(1, 1); // sps_temporal_id_nesting_flag
        b.put(0x01, 8); // general_profile_space, tier, profile_idc 1 (Main)
        b.put(0x60000000L, 32); // compatibility flags 1, 2
        b.put(0x9, 4); // progressive source, frame only
        b.put(0, 43);
        b.put(0, 1);
        b.put(90, 8); // general_level_idc
        ue(b, 0); // sps_seq_parameter_set_id
        ue(b, 1); // chroma_format_idc 4:2:0
        ue(b, w);
        ue(b, h);
        byte[] rbsp = b.bytes(2);
        // Emulation prevention: a 03 after two zeros would otherwise make 00 00 0x.
        ByteArrayOutputStream nal = new ByteArrayOutputStream();
        nal.write(33 << 1);
        nal.write(1);
        int zeros = 0;
        for (byte x : rbsp) {
            if (zeros >= 2 && (x & 0xFF) <= 3) {
                nal.write(3);
                zeros = 0;
            }
            nal.write(x);
            zeros = x == 0 ? zeros + 1 : 0;
        }
        byte[] sps = nal.toByteArray();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(1); // configurationVersion
        body.writeBytes(new byte[20]); // profile .. frame rate fields, left zero
        body.write(0x0F); // lengthSizeMinusOne 3
        body.write(1); // one array
        body.write(0x80 | 33);
        body.writeBytes(new byte[] {0, 1, (byte) (sps.length >> 8), (byte) sps.length});
        body.writeBytes(sps);
        return Heif.box("hvcC", body.toByteArray());
    }

    private static void ue(Bits b, long v) {
        int len = 64 - Long.numberOfLeadingZeros(v + 1);
        b.put(0, len - 1);
        b.put(v + 1, len);
    }

    private static final class Bits {
        private final List<Integer> bits = new ArrayList<>();

        void put(long v, int n) {
            for (int i = n - 1; i >= 0; i--) bits.add((int) ((v >> i) & 1));
        }

        byte[] bytes(int extra) {
            byte[] out = new byte[(bits.size() + 7) / 8 + extra];
            for (int i = 0; i < bits.size(); i++) out[i / 8] |= (byte) (bits.get(i) << (7 - i % 8));
            return out;
        }
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) out.writeBytes(p);
        return out.toByteArray();
    }

    /**
     * A HEIF file built item by item: {@code ftyp}, a {@code meta} box with {@code hdlr},
     * {@code pitm}, {@code iinf}, {@code iref}, {@code iprp} ({@code ipco}, {@code ipma}),
     * {@code iloc} and {@code idat}, then an {@code mdat} with the items' data (those not in idat).
     */
    public static final class Heif {
        private final String brand;
        private long primary = 1;
        private final List<Item> items = new ArrayList<>();
        private final List<long[]> refs = new ArrayList<>(); // {type index, from, to...}
        private final List<String> refTypes = new ArrayList<>();

        private record Item(long id, String type, List<byte[]> props, byte[] data, boolean inIdat) {}

        /** @param brand {@code avif} or {@code heic} */
        public Heif(String brand) {
            this.brand = brand;
        }

        public Heif primary(long id) {
            this.primary = id;
            return this;
        }

        /** An item with an ispe of {@code w}x{@code h} (none when w is 0), more properties, and its data. */
        public Heif item(long id, String type, int w, int h, byte[] data, byte[]... props) {
            return item(id, type, w, h, data, false, props);
        }

        public Heif item(long id, String type, int w, int h, byte[] data, boolean inIdat, byte[]... props) {
            List<byte[]> p = new ArrayList<>();
            if (w > 0) p.add(ispe(w, h));
            p.addAll(List.of(props));
            items.add(new Item(id, type, p, data, inIdat));
            return this;
        }

        /** A reference box of {@code type} from {@code from} to {@code to}. */
        public Heif ref(String type, long from, long... to) {
            long[] r = new long[to.length + 1];
            r[0] = from;
            System.arraycopy(to, 0, r, 1, to.length);
            refs.add(r);
            refTypes.add(type);
            return this;
        }

        /** A grid of {@code rows}x{@code columns} over {@code tiles} (row by row), its payload in idat. */
        public Heif grid(long id, int w, int h, int rows, int columns, int ispeW, int ispeH, long... tiles) {
            byte[] payload = ByteBuffer.allocate(8).put((byte) 0).put((byte) 0).put((byte) (rows - 1)).put((byte) (columns - 1))
                    .putShort((short) w).putShort((short) h).array();
            item(id, "grid", ispeW, ispeH, payload, true);
            return ref("dimg", id, tiles);
        }

        public static byte[] ispe(int w, int h) {
            return fullBox("ispe", 0, ByteBuffer.allocate(8).putInt(w).putInt(h).array());
        }

        public static byte[] box(String type, byte[] body) {
            return ByteBuffer.allocate(8 + body.length).putInt(8 + body.length).put(type.getBytes(StandardCharsets.US_ASCII)).put(body).array();
        }

        public static byte[] fullBox(String type, int version, byte[] body) {
            return box(type, concat(new byte[] {(byte) version, 0, 0, 0}, body));
        }

        public byte[] build() {
            byte[] ftyp = box("ftyp", concat(brand.getBytes(StandardCharsets.US_ASCII), new byte[4], "mif1".getBytes(StandardCharsets.US_ASCII),
                    brand.getBytes(StandardCharsets.US_ASCII), "miaf".getBytes(StandardCharsets.US_ASCII)));
            byte[] hdlr = fullBox("hdlr", 0, concat(new byte[4], "pict".getBytes(StandardCharsets.US_ASCII), new byte[13]));
            byte[] pitm = fullBox("pitm", 0, ByteBuffer.allocate(2).putShort((short) primary).array());
            ByteArrayOutputStream infe = new ByteArrayOutputStream();
            for (Item it : items) {
                infe.writeBytes(fullBox("infe", 2, concat(ByteBuffer.allocate(4).putShort((short) it.id()).putShort((short) 0).array(),
                        it.type().getBytes(StandardCharsets.US_ASCII), new byte[1])));
            }
            byte[] iinf = fullBox("iinf", 0, concat(ByteBuffer.allocate(2).putShort((short) items.size()).array(), infe.toByteArray()));
            ByteArrayOutputStream irefBody = new ByteArrayOutputStream();
            for (int i = 0; i < refs.size(); i++) {
                long[] r = refs.get(i);
                ByteBuffer b = ByteBuffer.allocate(4 + 2 * (r.length - 1)).putShort((short) r[0]).putShort((short) (r.length - 1));
                for (int k = 1; k < r.length; k++) b.putShort((short) r[k]);
                irefBody.writeBytes(box(refTypes.get(i), b.array()));
            }
            byte[] iref = refs.isEmpty() ? new byte[0] : fullBox("iref", 0, irefBody.toByteArray());
            ByteArrayOutputStream ipco = new ByteArrayOutputStream();
            ByteArrayOutputStream ipma = new ByteArrayOutputStream();
            ipma.writeBytes(ByteBuffer.allocate(4).putInt(items.size()).array());
            int index = 0;
            for (Item it : items) {
                ipma.writeBytes(ByteBuffer.allocate(3).putShort((short) it.id()).put((byte) it.props().size()).array());
                for (byte[] p : it.props()) {
                    ipco.writeBytes(p);
                    ipma.write(0x80 | ++index);
                }
            }
            byte[] iprp = box("iprp", concat(box("ipco", ipco.toByteArray()), fullBox("ipma", 0, ipma.toByteArray())));
            ByteArrayOutputStream idat = new ByteArrayOutputStream();
            ByteArrayOutputStream mdat = new ByteArrayOutputStream();
            long[] offsets = new long[items.size()];
            for (int i = 0; i < items.size(); i++) {
                Item it = items.get(i);
                ByteArrayOutputStream to = it.inIdat() ? idat : mdat;
                offsets[i] = to.size();
                to.writeBytes(it.data());
            }
            // iloc version 1: offset_size 4, length_size 4, base_offset_size 0, index_size 0.
            int ilocSize = 8 + 4 + 2 + 2 + items.size() * (2 + 2 + 2 + 2 + 8);
            byte[] idatBox = idat.size() == 0 ? new byte[0] : box("idat", idat.toByteArray());
            int metaSize = 12 + hdlr.length + pitm.length + iinf.length + iref.length + iprp.length + ilocSize + idatBox.length;
            long mdatStart = ftyp.length + metaSize + 8;
            ByteBuffer iloc = ByteBuffer.allocate(ilocSize).putInt(ilocSize).put("iloc".getBytes(StandardCharsets.US_ASCII))
                    .put((byte) 1).put(new byte[3]).put((byte) 0x44).put((byte) 0).putShort((short) items.size());
            for (int i = 0; i < items.size(); i++) {
                Item it = items.get(i);
                iloc.putShort((short) it.id()).putShort((short) (it.inIdat() ? 1 : 0)).putShort((short) 0).putShort((short) 1)
                        .putInt((int) (it.inIdat() ? offsets[i] : mdatStart + offsets[i])).putInt(it.data().length);
            }
            byte[] meta = fullBox("meta", 0, concat(hdlr, pitm, iinf, iref, iprp, iloc.array(), idatBox));
            return concat(ftyp, meta, box("mdat", mdat.toByteArray()));
        }
    }
}
