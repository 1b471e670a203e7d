package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.Corpus;
import com.fairpix.core.error.Permanent;
import com.fairpix.core.image.ByteSource;
import com.fairpix.core.image.ImageHeader;
import com.fairpix.core.image.HostileImages;
import com.fairpix.core.image.HostileImages.Heif;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.Operation;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.opencv.core.Mat;

/**
 * The gate's header parsers held to the real decoders (issue 33): seeded mutations of corpus files
 * and of crafted shapes (late GIF frames, multi-scan JPEGs, AVIF/HEIC and AVIF grids of real
 * tiles), each parsed as the ingest parses an upload (the first 512 KiB and the whole file) and
 * decoded by the worker's own {@link Decode}. It fails when the parser throws anything but
 * {@link ImageHeader.HeaderException}, when a decoder puts out more pixels than the gate priced
 * ({@link ImageHeader#gatePixels()}), or when the decoder's own after-the-fact size checks fire
 * (libheif's handle or image larger than the header said: the gate let through what the decoder
 * then had to refuse after allocating). Deterministic: one seed, a fixed number of cases.
 */
class GateHoldsDecodersTest {
    private static final long SEED = 33;
    private static final int CASES = 6000;
    /** Pixels above which a case is not decoded (the gate refuses it at a tenant limit): keeps the test fast. */
    private static final long DECODE_LIMIT = 4_000_000;
    private static final JobSpec FULL = new JobSpec(Map.of("full", List.of(new Operation.Encode("png", 80))), null);

    @BeforeAll
    static void load() {
        OpenCv.ensureLoaded();
    }

    /** Named seeds: corpus files and crafted shapes. */
    static Map<String, byte[]> seeds() {
        Map<String, byte[]> s = new LinkedHashMap<>();
        // Corpus files where the corpus is at hand (the crafted shapes below need none).
        java.nio.file.Path corpus = corpusRoot();
        if (corpus != null) {
            List<String> files = new ArrayList<>(List.of("sharp-fixtures/pitm.avif", "sharp-fixtures/grey-plus-alpha.gif", "sharp-fixtures/rotating-squares.gif",
                    "exif-orientation/Landscape_6.jpg", "pngsuite/basi0g08.png", "pngsuite/basi3p08.png"));
            try (var gifs = java.nio.file.Files.list(corpus.resolve("imagetestsuite/gif"))) {
                gifs.map(p -> "imagetestsuite/gif/" + p.getFileName()).sorted().limit(6).forEach(files::add);
            } catch (java.io.IOException e) {
                // no GIFs of that suite
            }
            for (String f : files) {
                java.nio.file.Path p = corpus.resolve(f);
                if (java.nio.file.Files.isRegularFile(p)) s.put(f, Corpus.bytes(f));
            }
        }
        s.put("late-gif", HostileImages.gifWithLateFrame(16, 16, 3000, 300, 200));
        // Its 1500x1000 frame starts after the first 512 KiB.
        s.put("late-gif-past-512k", HostileImages.gifWithLateFrame(16, 16, 530_000, 300, 200));
        s.put("jpeg-600-scans", HostileImages.baselineJpegWithScans(32, 32, 600));
        s.put("jpeg-1-scan", HostileImages.baselineJpeg(96, 64, new int[] {0, 1, 2}));
        s.put("jpeg-3-scans", HostileImages.baselineJpeg(96, 64, new int[] {0}, new int[] {1}, new int[] {2}));
        s.put("jpeg-progressive", TestImages.encode(TestImages.gradient(96, 64), ".jpg", org.opencv.imgcodecs.Imgcodecs.IMWRITE_JPEG_PROGRESSIVE, 1));
        if (LibHeif.available()) {
            byte[] avif = LibHeif.encodeAvif(TestImages.gradient(64, 48), 50, 9);
            s.put("avif", avif);
            byte[] heic = LibHeif.encodeHeic(TestImages.gradient(64, 48), 50, 6);
            s.put("heic", heic);
            // Its ispe says 16x12; its SPS codes 64x48 pictures.
            byte[] small = heic.clone();
            int ispe = new String(small, StandardCharsets.ISO_8859_1).indexOf("ispe");
            ByteBuffer.wrap(small, ispe + 8, 8).putInt(16).putInt(12);
            s.put("heic-ispe-below-sps", small);
            byte[] av1C = box(avif, "av1C");
            byte[] tile = mdat(avif);
            Heif grid = new Heif("avif").grid(1, 120, 90, 2, 2, 120, 90, 2, 3, 4, 5);
            for (long t = 2; t <= 5; t++) grid.item(t, "av01", 64, 48, tile, av1C);
            s.put("avif-grid", grid.build());
            Heif iden = new Heif("avif").item(1, "iden", 64, 48, new byte[0]).ref("dimg", 1, 2).item(2, "av01", 64, 48, tile, av1C);
            s.put("avif-iden", iden.build());
            // The issue's shapes: a grid whose canvas passes its ispe (1x128 for 128x96), an AV1
            // item whose ispe is smaller than its frames, an iden naming itself.
            Heif over = new Heif("avif").grid(1, 128, 96, 2, 2, 1, 128, 2, 3, 4, 5);
            for (long t = 2; t <= 5; t++) over.item(t, "av01", 64, 48, tile, av1C);
            s.put("avif-grid-canvas-over-ispe", over.build());
            s.put("avif-ispe-below-av1", new Heif("avif").item(1, "av01", 16, 12, tile, av1C).build());
            // An iden whose source is no declared item: libheif 1.15 died with SIGSEGV on such files.
            s.put("avif-iden-undeclared-source", new Heif("avif").item(1, "iden", 64, 48, new byte[0]).ref("dimg", 1, 127).item(2, "av01", 64, 48, tile, av1C).build());
            s.put("avif-iden-cycle", new Heif("avif").item(1, "iden", 64, 48, new byte[0]).ref("dimg", 1, 1).build());
        }
        return s;
    }

    @Test
    void aGifsCommentIsNotHandedToTheJdkReaderWhoseCopiesOfItAreQuadratic() throws Exception {
        byte[] gif = HostileImages.gifWithLateFrame(16, 16, 4 << 20, 16, 16);
        byte[] stripped = GifDecode.withoutExtensions(gif);
        assertThat(stripped.length).isLessThan(100);
        ImageHeader h = ImageHeader.read(gif);
        try (Decoded d = new Decode(DECODE_LIMIT).apply(gif, FULL)) {
            assertThat(d.image().size()).isEqualTo(new org.opencv.core.Size(16, 16));
        }
        assertThat(h.pixels()).isEqualTo(256);
    }

    private static java.nio.file.Path corpusRoot() {
        try {
            return Corpus.root();
        } catch (org.opentest4j.TestAbortedException e) {
            return null;
        }
    }

    /** The first property box of {@code type} in an encoded file (libheif writes one item). */
    private static byte[] box(byte[] file, String type) {
        byte[] t = type.getBytes(StandardCharsets.US_ASCII);
        for (int i = 4; i + 4 <= file.length; i++) {
            if (file[i] == t[0] && file[i + 1] == t[1] && file[i + 2] == t[2] && file[i + 3] == t[3]) {
                int size = ByteBuffer.wrap(file, i - 4, 4).getInt();
                return Arrays.copyOfRange(file, i - 4, i - 4 + size);
            }
        }
        throw new AssertionError("no " + type + " box");
    }

    private static byte[] mdat(byte[] file) {
        byte[] b = box(file, "mdat");
        return Arrays.copyOfRange(b, 8, b.length);
    }

    private static final int[] INTERESTING = {0, 1, 2, 3, 7, 8, 0x7F, 0x80, 0xFF, 0x100, 0x3FFF, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 1000, 4096, 10000, 65535, 0x7FFFFFFF};

    /** One to four mutations, most near the start (where the headers are). */
    static byte[] mutate(byte[] in, Random r, StringBuilder how) {
        byte[] d = in.clone();
        int n = 1 + r.nextInt(4);
        for (int k = 0; k < n && d.length > 8; k++) {
            int span = r.nextInt(10) < 7 ? Math.min(d.length, 2048) : d.length;
            int at = r.nextInt(span);
            switch (r.nextInt(6)) {
                case 0 -> {
                    d[at] ^= (byte) (1 << r.nextInt(8));
                    how.append(" flip@").append(at);
                }
                case 1 -> {
                    d[at] = (byte) INTERESTING[r.nextInt(9)];
                    how.append(" byte@").append(at).append('=').append(d[at] & 0xFF);
                }
                case 2, 3 -> {
                    int width = r.nextBoolean() ? 2 : 4;
                    if (at + width > d.length) break;
                    int v = r.nextInt(5) == 0 ? r.nextInt() : INTERESTING[r.nextInt(INTERESTING.length)];
                    boolean le = r.nextBoolean();
                    for (int i = 0; i < width; i++) {
                        int shift = 8 * (le ? i : width - 1 - i);
                        d[at + i] = (byte) (v >>> shift);
                    }
                    how.append(" int").append(width * 8).append(le ? "le@" : "be@").append(at).append('=').append(v);
                }
                case 4 -> { // cut
                    int len = 1 + r.nextInt(Math.min(64, d.length - at));
                    byte[] out = new byte[d.length - len];
                    System.arraycopy(d, 0, out, 0, at);
                    System.arraycopy(d, at + len, out, at, d.length - at - len);
                    d = out;
                    how.append(" cut@").append(at).append('+').append(len);
                }
                default -> { // duplicate a run
                    int len = 1 + r.nextInt(Math.min(64, d.length - at));
                    byte[] out = new byte[d.length + len];
                    System.arraycopy(d, 0, out, 0, at + len);
                    System.arraycopy(d, at, out, at + len, d.length - at);
                    d = out;
                    how.append(" dup@").append(at).append('+').append(len);
                }
            }
        }
        return d;
    }

    /** What one case did. */
    enum Outcome { REFUSED_BY_GATE, OVER_DECODE_LIMIT, REFUSED_BY_PLAN, DECODER_REFUSED, DECODED }

    @Test
    void noDecoderPutsOutMorePixelsThanTheGatePricedAndTheParsersOnlyRefuse() {
        Map<String, byte[]> seeds = seeds();
        List<String> names = new ArrayList<>(seeds.keySet());
        Random r = new Random(SEED);
        Map<Outcome, Integer> outcomes = new TreeMap<>();
        Map<String, Long> nanos = new TreeMap<>();
        List<String> findings = new ArrayList<>();
        Decode decode = new Decode(DECODE_LIMIT);
        long started = System.nanoTime();
        for (int c = 0; c < CASES; c++) {
            String seed = names.get(c % names.size());
            StringBuilder how = new StringBuilder();
            // The first round is the seeds themselves, unmutated.
            byte[] data = c < names.size() ? seeds.get(seed) : mutate(seeds.get(seed), r, how);
            String label = "case " + c + " (" + seed + how + ")";
            Outcome o;
            long t0 = System.nanoTime();
            try {
                o = run(decode, data, label, findings);
            } catch (RuntimeException | Error e) {
                findings.add(label + ": " + e);
                o = Outcome.DECODER_REFUSED;
            }
            outcomes.merge(o, 1, Integer::sum);
            nanos.merge(seed, System.nanoTime() - t0, Long::sum);
        }
        System.out.printf("GateHoldsDecodersTest: %d cases from %d seeds (seed %d) in %.1f s: %s%n", CASES, names.size(), SEED,
                (System.nanoTime() - started) / 1e9, outcomes);
        nanos.forEach((k, v) -> System.out.printf("  %-40s %6d ms%n", k, v / 1_000_000));
        findings.forEach(f -> System.out.println("  FOUND " + f));
        assertThat(findings).as("cases where a decoder did more than the gate priced, or a parser threw").isEmpty();
    }

    private static final java.util.regex.Pattern DECODED_SIZE = java.util.regex.Pattern.compile("decoded (\\d+)x(\\d+) but the header says");

    private static Outcome run(Decode decode, byte[] data, String label, List<String> findings) {
        ImageHeader gate;
        try {
            // As the ingest reads an upload: its first 512 KiB, and the whole file for what lies later.
            gate = ImageHeader.readPrefix(Arrays.copyOf(data, Math.min(data.length, 512 * 1024)), ByteSource.of(data, true));
            ImageHeader.read(data); // the worker's parse: only HeaderException may come out of it either
        } catch (ImageHeader.HeaderException e) {
            return Outcome.REFUSED_BY_GATE;
        } catch (RuntimeException e) {
            findings.add(label + ": the header parser threw " + e);
            return Outcome.REFUSED_BY_GATE;
        }
        if (gate == null) return Outcome.REFUSED_BY_GATE;
        if (gate.gatePixels() > DECODE_LIMIT) return Outcome.OVER_DECODE_LIMIT;
        DecodePlan plan;
        try {
            plan = decode.plan(data, FULL);
        } catch (Permanent e) {
            return Outcome.REFUSED_BY_PLAN;
        }
        try (Decoded d = decode.apply(data, plan)) {
            Mat m = d.image();
            if (m.total() > gate.gatePixels()) {
                findings.add(label + ": decoded " + m.cols() + "x" + m.rows() + ", the gate priced " + gate.gatePixels() + " pixels");
            }
            return Outcome.DECODED;
        } catch (Permanent e) {
            String msg = String.valueOf(e.getMessage());
            // The decoders' own after-the-fact checks: the header let through more than it said.
            java.util.regex.Matcher decoded = DECODED_SIZE.matcher(msg);
            if (msg.contains("libheif would decode") || msg.contains("libheif returned")
                    || decoded.find() && Long.parseLong(decoded.group(1)) * Long.parseLong(decoded.group(2)) > gate.gatePixels()) {
                findings.add(label + ": " + e.getMessage());
            }
            return Outcome.DECODER_REFUSED;
        }
    }
}
