package com.fairpix.core.image;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A HEIF {@code meta} box's item graph, as far as the gate needs it to bound what libheif decodes
 * for the primary item: item types ({@code iinf}/{@code infe}, ISO/IEC 14496-12 §8.11.6), references
 * ({@code iref} §8.11.12: {@code dimg} for derivations, {@code auxl} for alpha), properties
 * ({@code ipco}/{@code ipma}, 23008-12 §9.3: {@code ispe}, {@code av1C}, {@code hvcC}), item data
 * locations ({@code iloc} §8.11.3, {@code idat} §8.11.11) for a grid's or overlay's payload and an
 * AV1 item's sequence header, and {@code pitm}. The first of each box wins, as in libheif.
 *
 * <p>Every refusal is a {@link ImageHeader.HeaderException}: malformed or inconsistent structures
 * (cycles, items without {@code ispe}, a grid whose tiles do not match its canvas, an AV1 sequence
 * header larger than its {@code ispe}) as unreadable, counts past the limits as
 * {@linkplain ImageHeader.HeaderException#overLimit over the limit}.
 */
final class HeifItems {
    private final ImageFormat format;
    private final ByteSource file;
    private long primary = -1;
    private final Map<Long, String> types = new HashMap<>();
    /** dimg references by from-item, in order (the first dimg box for an item wins). */
    private final Map<Long, long[]> dimg = new HashMap<>();
    /** auxl references: auxiliary item → the items it serves. */
    private final Map<Long, long[]> auxl = new HashMap<>();
    private final Map<Long, int[]> associations = new HashMap<>();
    private final List<byte[]> properties = new ArrayList<>();
    private final Map<Long, Location> locations = new HashMap<>();
    private byte[] idat;
    private final Map<Long, Bound> bounds = new HashMap<>();
    /**
     * Most entries read in all: {@code iinf} items, {@code ipma} associations, {@code iloc} items and
     * extents, OBUs and NAL units walked in items' data. A 200 MP phone photo of 768 tiles has about
     * 2,500; without a cap a 4 MiB meta box of 3-byte entries, extents of zero bytes, or a thousand
     * tiles pointing at one extent of tiny units make the parse itself the attack (heap, CPU).
     */
    static final int MAX_UNITS = 65_536;
    private int units;

    /** Where an item's data lies: {@code method} 0 file offsets, 1 offsets in {@code idat}. */
    private record Location(int method, long[] offsets, long[] lengths) {}

    /**
     * What decoding an item gives and costs.
     *
     * @param ispe    its {@code ispe} width and height, what it decodes to before its transformations
     * @param decoded pixels the codecs decode for it, its derivation included
     */
    record Bound(long[] ispe, long decoded) {}

    private HeifItems(ImageFormat format, ByteSource file) {
        this.format = format;
        this.file = file;
    }

    long primary() {
        return primary;
    }

    static HeifItems parse(byte[] meta, ImageFormat format, ByteSource file) throws ImageHeader.HeaderException {
        HeifItems g = new HeifItems(format, file);
        // meta is a FullBox: version and flags, then child boxes.
        byte[] ipco = null, ipma = null, iinf = null, iref = null, iloc = null;
        for (int at = 4; at + 8 <= meta.length; ) {
            long size = ImageHeader.u32(meta, at, false);
            String type = new String(meta, at + 4, 4, StandardCharsets.US_ASCII);
            if (size < 8 || at + size > meta.length) break;
            int end = (int) (at + size);
            switch (type) {
                case "pitm" -> {
                    if (size >= 14 && g.primary < 0) {
                        g.primary = meta[at + 8] == 0 ? ImageHeader.u16(meta, at + 12, false) : (size >= 16 ? ImageHeader.u32(meta, at + 12, false) : -1);
                    }
                }
                case "iinf" -> { if (iinf == null) iinf = java.util.Arrays.copyOfRange(meta, at + 8, end); }
                case "iref" -> { if (iref == null) iref = java.util.Arrays.copyOfRange(meta, at + 8, end); }
                case "iloc" -> { if (iloc == null) iloc = java.util.Arrays.copyOfRange(meta, at + 8, end); }
                case "idat" -> { if (g.idat == null) g.idat = java.util.Arrays.copyOfRange(meta, at + 8, end); }
                case "iprp" -> {
                    for (int c = at + 8; c + 8 <= end; ) {
                        long cs = ImageHeader.u32(meta, c, false);
                        if (cs < 8 || c + cs > end) break;
                        String ct = new String(meta, c + 4, 4, StandardCharsets.US_ASCII);
                        if (ct.equals("ipco") && ipco == null) ipco = java.util.Arrays.copyOfRange(meta, c + 8, (int) (c + cs));
                        if (ct.equals("ipma") && ipma == null) ipma = java.util.Arrays.copyOfRange(meta, c + 8, (int) (c + cs));
                        c += (int) cs;
                    }
                }
                default -> { }
            }
            at = end;
        }
        String id = format.id();
        if (g.primary < 0) throw new ImageHeader.HeaderException(id + ": no primary item (pitm)");
        if (ipco == null || ipma == null) throw new ImageHeader.HeaderException(id + ": no item properties (iprp/ipco/ipma)");
        g.readProperties(ipco);
        g.readAssociations(ipma);
        if (iinf != null) g.readItemInfo(iinf);
        if (iref != null) g.readReferences(iref);
        if (iloc != null) g.readLocations(iloc);
        return g;
    }

    /** The primary item's bound; refuses what cannot be bounded. Its alpha (auxl) plane may be no larger than it. */
    Bound primaryBound() throws ImageHeader.HeaderException {
        Bound b = bound(primary, 0, new HashSet<>());
        for (Map.Entry<Long, long[]> e : auxl.entrySet()) {
            for (long to : e.getValue()) {
                if (to != primary) continue;
                Bound aux = bound(e.getKey(), 1, new HashSet<>(Set.of(primary)));
                if (!fits(aux.ispe(), b.ispe()) || aux.decoded() > pixels(b.ispe())) {
                    throw new ImageHeader.HeaderException(format.id() + ": auxiliary item " + e.getKey() + " (" + size(aux.ispe())
                            + ") is larger than the primary image (" + size(b.ispe()) + ")");
                }
            }
        }
        return b;
    }

    /** The properties associated with {@code item}, in order (each the whole box); unknown indices skipped. */
    List<byte[]> properties(long item) {
        List<byte[]> out = new ArrayList<>();
        int[] idx = associations.get(item);
        if (idx == null) return out;
        for (int i : idx) {
            if (i >= 1 && i <= properties.size()) out.add(properties.get(i - 1));
        }
        return out;
    }

    private Bound bound(long item, int depth, Set<Long> path) throws ImageHeader.HeaderException {
        String id = format.id();
        if (!path.add(item)) throw new ImageHeader.HeaderException(id + ": item " + item + " refers back to itself (a reference cycle): its decode cannot be bounded");
        if (depth > HeifHeader.MAX_DEPTH) {
            throw ImageHeader.HeaderException.overLimit(id + ": derivation deeper than " + HeifHeader.MAX_DEPTH + " levels below the primary item");
        }
        Bound known = bounds.get(item);
        if (known != null) {
            path.remove(item);
            return known;
        }
        String type = types.get(item);
        if (type == null) throw new ImageHeader.HeaderException(id + ": item " + item + " is used but not declared (iinf)");
        long[] ispe = ispe(item);
        if (ispe == null) throw new ImageHeader.HeaderException(id + ": item " + item + " ('" + type + "') has no image size (ispe): its decode cannot be bounded");
        Bound b = switch (type) {
            case "av01" -> {
                av1(item, ispe);
                yield new Bound(ispe, pixels(ispe));
            }
            case "hvc1" -> {
                hevc(item, ispe);
                yield new Bound(ispe, pixels(ispe));
            }
            case "grid" -> grid(item, ispe, depth, path);
            case "iden" -> iden(item, ispe, depth, path);
            case "iovl" -> overlay(item, ispe, depth, path);
            default -> throw new ImageHeader.HeaderException(id + ": item " + item + " has type '" + type + "', which is not decoded here (hvc1, av01, grid, iden, iovl)");
        };
        path.remove(item);
        bounds.put(item, b);
        return b;
    }

    private long[] references(long item, String what) throws ImageHeader.HeaderException {
        long[] refs = dimg.get(item);
        if (refs == null || refs.length == 0) throw new ImageHeader.HeaderException(format.id() + ": " + what + " item " + item + " has no dimg references");
        if (refs.length > HeifHeader.MAX_REFERENCES) {
            throw ImageHeader.HeaderException.overLimit(format.id() + ": " + what + " item " + item + " has " + refs.length + " references (at most " + HeifHeader.MAX_REFERENCES + ")");
        }
        return refs;
    }

    /** ImageGrid (23008-12 §6.6.2.3): tiles of one size, in rows, covering the canvas, none wholly outside it. */
    private Bound grid(long item, long[] ispe, int depth, Set<Long> path) throws ImageHeader.HeaderException {
        String id = format.id();
        long[] refs = references(item, "grid");
        byte[] p = data(item, 12);
        if (p.length < 8) throw new ImageHeader.HeaderException(id + ": grid item " + item + " has a payload of " + p.length + " bytes");
        boolean wide = (p[1] & 1) != 0;
        int rows = (p[2] & 0xFF) + 1, columns = (p[3] & 0xFF) + 1;
        if (wide && p.length < 12) throw new ImageHeader.HeaderException(id + ": grid item " + item + " has a payload of " + p.length + " bytes");
        long w = wide ? ImageHeader.u32(p, 4, false) : ImageHeader.u16(p, 4, false);
        long h = wide ? ImageHeader.u32(p, 8, false) : ImageHeader.u16(p, 6, false);
        if (refs.length != (long) rows * columns) {
            throw new ImageHeader.HeaderException(id + ": grid item " + item + " has " + rows + "x" + columns + " cells but " + refs.length + " tiles");
        }
        if (w != ispe[0] || h != ispe[1]) {
            throw new ImageHeader.HeaderException(id + ": grid item " + item + " makes a " + w + "x" + h + " canvas but its ispe says " + size(ispe));
        }
        long[] tile = null;
        long decoded = 0;
        for (long ref : refs) {
            Bound t = bound(ref, depth + 1, path);
            if (tile == null) tile = t.ispe();
            else if (t.ispe()[0] != tile[0] || t.ispe()[1] != tile[1]) {
                throw new ImageHeader.HeaderException(id + ": grid item " + item + " has tiles of " + size(tile) + " and " + size(t.ispe()));
            }
            decoded += t.decoded();
        }
        // Every column and row of tiles starts inside the canvas and together they cover it; the
        // overhang is then less than one tile, and less than the canvas itself.
        if (!covers(tile[0], columns, w) || !covers(tile[1], rows, h)) {
            throw new ImageHeader.HeaderException(id + ": grid item " + item + " has " + rows + "x" + columns + " tiles of " + size(tile)
                    + ", which do not match its " + w + "x" + h + " canvas");
        }
        return new Bound(ispe, Math.max(decoded, w * h));
    }

    private static boolean covers(long tile, int count, long canvas) {
        return tile * count >= canvas && tile * (count - 1) < canvas && tile * count < 2 * canvas;
    }

    /** Identity derivation (23008-12 §6.6.2.2): exactly one source, no larger than the item's ispe. */
    private Bound iden(long item, long[] ispe, int depth, Set<Long> path) throws ImageHeader.HeaderException {
        long[] refs = references(item, "iden");
        if (refs.length != 1) throw new ImageHeader.HeaderException(format.id() + ": iden item " + item + " has " + refs.length + " sources");
        Bound source = bound(refs[0], depth + 1, path);
        if (!fits(source.ispe(), ispe)) {
            throw new ImageHeader.HeaderException(format.id() + ": iden item " + item + " (" + size(ispe) + ") derives from a larger image (" + size(source.ispe()) + ")");
        }
        return new Bound(ispe, source.decoded());
    }

    /** Overlay (23008-12 §6.6.2.4): a canvas and layers, each no larger than the canvas. */
    private Bound overlay(long item, long[] ispe, int depth, Set<Long> path) throws ImageHeader.HeaderException {
        String id = format.id();
        long[] refs = references(item, "iovl");
        byte[] p = data(item, 20);
        boolean wide = p.length >= 2 && (p[1] & 1) != 0;
        if (p.length < (wide ? 18 : 14)) throw new ImageHeader.HeaderException(id + ": iovl item " + item + " has a payload of " + p.length + " bytes");
        long w = wide ? ImageHeader.u32(p, 10, false) : ImageHeader.u16(p, 10, false);
        long h = wide ? ImageHeader.u32(p, 14, false) : ImageHeader.u16(p, 12, false);
        if (w != ispe[0] || h != ispe[1]) {
            throw new ImageHeader.HeaderException(id + ": iovl item " + item + " makes a " + w + "x" + h + " canvas but its ispe says " + size(ispe));
        }
        long decoded = w * h;
        for (long ref : refs) {
            Bound layer = bound(ref, depth + 1, path);
            if (!fits(layer.ispe(), ispe)) {
                throw new ImageHeader.HeaderException(id + ": iovl item " + item + " (" + size(ispe) + ") has a larger layer (" + size(layer.ispe()) + ")");
            }
            decoded += layer.decoded();
        }
        return new Bound(ispe, decoded);
    }

    /**
     * An AV1 item: the decoder takes the frame size from the sequence header (libheif puts the
     * {@code av1C} configOBUs before the item's data), up to max_frame_width/height. Both, where
     * present, must fit the item's ispe; with neither the size cannot be bounded.
     */
    private void av1(long item, long[] ispe) throws ImageHeader.HeaderException {
        String id = format.id();
        long[] fromConfig = null;
        for (byte[] p : properties(item)) {
            if (p.length >= 12 && p[4] == 'a' && p[5] == 'v' && p[6] == '1' && p[7] == 'C') {
                fromConfig = Av1Sequence.maxFrameSize(p, 12, p.length);
                break;
            }
        }
        List<long[]> sizes = new ArrayList<>();
        if (fromConfig != null) sizes.add(fromConfig);
        // Every sequence header in the item's data: the decoder takes the last one it meets.
        ByteWindow w = new ByteWindow(itemData(item));
        long at = 0;
        while (at < w.length()) {
            count(1, "OBUs in AV1 item data");
            int header = w.at(at);
            if (header < 0 || (header & 0x80) != 0 || (header & 2) == 0) break; // the walk needs size fields
            int type = (header >> 3) & 15;
            long p = at + ((header & 4) != 0 ? 2 : 1), size = 0;
            int i = 0;
            for (int b; ; i++) {
                b = w.at(p++);
                if (b < 0 || i >= 8) { size = -1; break; }
                size |= (long) (b & 0x7F) << (7 * i);
                if ((b & 0x80) == 0) break;
            }
            if (size < 0) break;
            if (type == 1) {
                byte[] obu = itemData(item).read(at, (int) Math.min(p - at + size, Math.min(256, w.length() - at)));
                long[] max = Av1Sequence.maxFrameSize(obu, 0, obu.length);
                if (max != null) sizes.add(max);
            }
            at = p + size;
        }
        if (sizes.isEmpty()) {
            throw new ImageHeader.HeaderException(id + ": AV1 item " + item + " has no sequence header: its frame size cannot be bounded");
        }
        for (long[] max : sizes) {
            if (max[0] > ispe[0] || max[1] > ispe[1]) {
                throw new ImageHeader.HeaderException(id + ": AV1 item " + item + " allows frames of " + size(max) + " (sequence header), larger than its ispe of " + size(ispe));
            }
        }
    }

    /**
     * An HEVC item: libde265 allocates pictures at the SPS's coded size (hvcC's and any in the
     * item's data). Coded sizes are whole coding blocks, so up to one 64-sample CTB past the ispe
     * (cropped by the conformance window) is the norm; more is refused.
     */
    private void hevc(long item, long[] ispe) throws ImageHeader.HeaderException {
        byte[] hvcC = null;
        for (byte[] p : properties(item)) {
            if (p.length >= 8 && p[4] == 'h' && p[5] == 'v' && p[6] == 'c' && p[7] == 'C') {
                hvcC = p;
                break;
            }
        }
        List<long[]> sizes = new ArrayList<>();
        if (hvcC != null) {
            long[] s = HevcSps.fromConfig(hvcC);
            if (s != null) sizes.add(s);
        }
        if (locations.containsKey(item)) {
            int lengthSize = hvcC == null ? 4 : HevcSps.lengthSize(hvcC);
            ByteSource data = itemData(item);
            ByteWindow w = new ByteWindow(data);
            for (long at = 0; at + lengthSize < w.length(); ) {
                count(1, "NAL units in HEVC item data");
                long len = 0;
                for (int i = 0; i < lengthSize; i++) len = (len << 8) | w.at(at + i);
                at += lengthSize;
                if (len < 2) break;
                if (((w.at(at) >> 1) & 0x3F) == 33) {
                    byte[] sps = data.read(at, (int) Math.min(len, Math.min(512, w.length() - at)));
                    long[] s = HevcSps.size(sps, 0, sps.length);
                    if (s != null) sizes.add(s);
                }
                at += len;
            }
        }
        for (long[] coded : sizes) {
            if (coded[0] > ispe[0] + 64 || coded[1] > ispe[1] + 64) {
                throw new ImageHeader.HeaderException(format.id() + ": HEVC item " + item + " codes pictures of " + size(coded) + " (SPS), larger than its ispe of " + size(ispe));
            }
        }
    }

    /** The item's data as one run of bytes over its extents (empty when it has no location). */
    private ByteSource itemData(long item) {
        Location loc = locations.get(item);
        long[] starts = loc == null ? new long[0] : new long[loc.offsets().length];
        long[] lengths = loc == null ? new long[0] : new long[loc.offsets().length];
        long total = 0;
        for (int e = 0; e < starts.length; e++) {
            long base = loc.method() == 0 ? file.length() : (idat == null ? 0 : idat.length);
            long off = loc.offsets()[e];
            long len = loc.lengths()[e] == 0 ? base - off : loc.lengths()[e];
            starts[e] = off;
            lengths[e] = Math.max(0, Math.min(len, base - off));
            total += lengths[e];
        }
        long length = total;
        return new ByteSource() {
            @Override public long length() { return length; }

            @Override public boolean whole() { return file.whole(); }

            @Override public byte[] read(long offset, int n) throws ImageHeader.HeaderException {
                if (offset < 0 || n < 0 || offset > length - n) throw new ImageHeader.HeaderException("item " + item + " data truncated at byte " + offset, true);
                byte[] out = new byte[n];
                int done = 0;
                long skip = offset;
                for (int e = 0; e < starts.length && done < n; e++) {
                    if (skip >= lengths[e]) {
                        skip -= lengths[e];
                        continue;
                    }
                    int k = (int) Math.min(n - done, lengths[e] - skip);
                    if (loc.method() == 0) System.arraycopy(file.read(starts[e] + skip, k), 0, out, done, k);
                    else System.arraycopy(idat, (int) (starts[e] + skip), out, done, k);
                    done += k;
                    skip = 0;
                }
                return out;
            }
        };
    }

    private void count(int n, String what) throws ImageHeader.HeaderException {
        units += n;
        if (units > MAX_UNITS) {
            throw ImageHeader.HeaderException.overLimit(format.id() + ": more than " + MAX_UNITS + " entries to read (items, associations, extents, OBUs or NAL units; here " + what + ")");
        }
    }

    private static boolean fits(long[] inner, long[] outer) {
        return inner[0] * inner[1] <= outer[0] * outer[1] && Math.max(inner[0], inner[1]) <= Math.max(outer[0], outer[1]);
    }

    private static long pixels(long[] size) {
        return size[0] * size[1];
    }

    private static String size(long[] s) {
        return s[0] + "x" + s[1];
    }

    /** The item's first ispe, or null. */
    private long[] ispe(long item) {
        for (byte[] p : properties(item)) {
            if (p.length >= 20 && p[4] == 'i' && p[5] == 's' && p[6] == 'p' && p[7] == 'e') {
                long w = ImageHeader.u32(p, 12, false), h = ImageHeader.u32(p, 16, false);
                if (w <= 0 || h <= 0 || w > Integer.MAX_VALUE || h > Integer.MAX_VALUE) return null;
                return new long[] {w, h};
            }
        }
        return null;
    }

    /** Up to {@code max} bytes from the start of the item's data (its extents in order). */
    private byte[] data(long item, int max) throws ImageHeader.HeaderException {
        String id = format.id();
        Location loc = locations.get(item);
        if (loc == null) throw new ImageHeader.HeaderException(id + ": item " + item + " has no location (iloc)");
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int e = 0; e < loc.offsets().length && out.size() < max; e++) {
            long off = loc.offsets()[e], len = loc.lengths()[e];
            int want = max - out.size();
            if (loc.method() == 0) {
                long avail = file.length() - off;
                if (off < 0 || avail <= 0) throw new ImageHeader.HeaderException(id + ": item " + item + " data at byte " + off + " is past the file's end", !file.whole());
                long n = Math.min(want, len == 0 ? avail : Math.min(len, avail));
                out.writeBytes(file.read(off, (int) n));
            } else {
                byte[] d = idat == null ? new byte[0] : idat;
                if (off < 0 || off >= d.length) throw new ImageHeader.HeaderException(id + ": item " + item + " data at idat byte " + off + " is past the idat box");
                long n = Math.min(want, len == 0 ? d.length - off : Math.min(len, d.length - off));
                out.write(d, (int) off, (int) n);
            }
        }
        return out.toByteArray();
    }

    private void readProperties(byte[] ipco) {
        for (int at = 0; at + 8 <= ipco.length; ) {
            long size = ImageHeader.u32(ipco, at, false);
            if (size < 8 || at + size > ipco.length) break;
            properties.add(java.util.Arrays.copyOfRange(ipco, at, (int) (at + size)));
            at += (int) size;
        }
    }

    private void readAssociations(byte[] ipma) throws ImageHeader.HeaderException {
        if (ipma.length < 8) return;
        int version = ipma[0];
        boolean wide = (ipma[3] & 1) != 0;
        long entries = ImageHeader.u32(ipma, 4, false);
        int at = 8;
        for (long k = 0; k < entries; k++) {
            int idBytes = version < 1 ? 2 : 4;
            if (at + idBytes + 1 > ipma.length) return;
            long item = idBytes == 2 ? ImageHeader.u16(ipma, at, false) : ImageHeader.u32(ipma, at, false);
            int n = ipma[at + idBytes] & 0xFF;
            count(1, "ipma entries");
            at += idBytes + 1;
            int[] out = new int[n];
            for (int j = 0; j < n; j++) {
                if (at + (wide ? 2 : 1) > ipma.length) return;
                out[j] = wide ? ImageHeader.u16(ipma, at, false) & 0x7FFF : ipma[at] & 0x7F;
                at += wide ? 2 : 1;
            }
            associations.putIfAbsent(item, out);
        }
    }

    /** iinf (FullBox): entry count, then infe boxes; versions 2 and 3 carry the item type. */
    private void readItemInfo(byte[] iinf) throws ImageHeader.HeaderException {
        int at = iinf.length >= 4 && iinf[0] == 0 ? 6 : 8;
        while (at + 8 <= iinf.length) {
            long size = ImageHeader.u32(iinf, at, false);
            if (size < 8 || at + size > iinf.length) return;
            int end = (int) (at + size);
            count(1, "iinf entries");
            if (iinf[at + 4] == 'i' && iinf[at + 5] == 'n' && iinf[at + 6] == 'f' && iinf[at + 7] == 'e' && at + 12 <= end) {
                int version = iinf[at + 8];
                int p = at + 12;
                if (version == 2 && p + 8 <= end) {
                    types.putIfAbsent((long) ImageHeader.u16(iinf, p, false), new String(iinf, p + 4, 4, StandardCharsets.US_ASCII));
                } else if (version == 3 && p + 10 <= end) {
                    types.putIfAbsent(ImageHeader.u32(iinf, p, false), new String(iinf, p + 6, 4, StandardCharsets.US_ASCII));
                }
            }
            at = end;
        }
    }

    /** iref (FullBox): version 0 16-bit item ids, 1 32-bit; one box per reference type and from-item. */
    private void readReferences(byte[] iref) throws ImageHeader.HeaderException {
        boolean wide = iref.length >= 1 && iref[0] != 0;
        int idBytes = wide ? 4 : 2;
        for (int at = 4; at + 8 <= iref.length; ) {
            long size = ImageHeader.u32(iref, at, false);
            if (size < 8 || at + size > iref.length) return;
            int end = (int) (at + size);
            String type = new String(iref, at + 4, 4, StandardCharsets.US_ASCII);
            int p = at + 8;
            if (p + idBytes + 2 <= end) {
                long from = wide ? ImageHeader.u32(iref, p, false) : ImageHeader.u16(iref, p, false);
                int count = ImageHeader.u16(iref, p + idBytes, false);
                p += idBytes + 2;
                if (count > HeifHeader.MAX_REFERENCES && type.equals("dimg")) {
                    throw ImageHeader.HeaderException.overLimit(format.id() + ": item " + from + " has " + count + " dimg references (at most " + HeifHeader.MAX_REFERENCES + ")");
                }
                int n = (int) Math.min(count, (end - p) / idBytes);
                long[] to = new long[n];
                for (int k = 0; k < n; k++) to[k] = wide ? ImageHeader.u32(iref, p + k * idBytes, false) : ImageHeader.u16(iref, p + k * idBytes, false);
                if (type.equals("dimg")) dimg.putIfAbsent(from, to);
                if (type.equals("auxl")) auxl.putIfAbsent(from, to);
            }
            at = end;
        }
    }

    /** iloc (FullBox, versions 0–2). Construction methods other than 0 (file) and 1 (idat) are left out: such items have no data here. */
    private void readLocations(byte[] iloc) throws ImageHeader.HeaderException {
        if (iloc.length < 8) return;
        int version = iloc[0];
        int offsetSize = (iloc[4] >> 4) & 15, lengthSize = iloc[4] & 15, baseSize = (iloc[5] >> 4) & 15;
        int indexSize = version >= 1 ? iloc[5] & 15 : 0;
        int at = 6;
        long count;
        if (version < 2) {
            count = ImageHeader.u16(iloc, at, false);
            at += 2;
        } else {
            if (at + 4 > iloc.length) return;
            count = ImageHeader.u32(iloc, at, false);
            at += 4;
        }
        for (long k = 0; k < count; k++) {
            int[] cursor = {at};
            long item = version < 2 ? uint(iloc, cursor, 2) : uint(iloc, cursor, 4);
            int method = 0;
            if (version >= 1) method = (int) (uint(iloc, cursor, 2) & 15);
            uint(iloc, cursor, 2); // data_reference_index
            long base = uint(iloc, cursor, baseSize);
            int extents = (int) uint(iloc, cursor, 2);
            count(1 + extents, "iloc entries and extents");
            long[] offsets = new long[extents], lengths = new long[extents];
            for (int e = 0; e < extents; e++) {
                if (indexSize > 0) uint(iloc, cursor, indexSize);
                offsets[e] = base + uint(iloc, cursor, offsetSize);
                lengths[e] = uint(iloc, cursor, lengthSize);
            }
            at = cursor[0];
            if (method <= 1) locations.putIfAbsent(item, new Location(method, offsets, lengths));
        }
    }

    /** An unsigned big-endian value of {@code n} bytes (0, 2, 4 or 8) at the cursor, which moves past it. */
    private long uint(byte[] d, int[] cursor, int n) throws ImageHeader.HeaderException {
        int at = cursor[0];
        if (n != 0 && n != 2 && n != 4 && n != 8) throw new ImageHeader.HeaderException(format.id() + ": iloc field of " + n + " bytes");
        if (at + n > d.length) throw new ImageHeader.HeaderException(format.id() + ": iloc box truncated");
        long v = switch (n) {
            case 0 -> 0;
            case 2 -> ImageHeader.u16(d, at, false);
            case 4 -> ImageHeader.u32(d, at, false);
            default -> HeifHeader.u64(d, at);
        };
        if (v < 0) throw new ImageHeader.HeaderException(format.id() + ": iloc value out of range");
        cursor[0] = at + n;
        return v;
    }
}
