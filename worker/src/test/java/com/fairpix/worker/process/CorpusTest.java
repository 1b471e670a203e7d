package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fairpix.core.Corpus;
import com.fairpix.core.error.Permanent;
import com.fairpix.core.image.ImageFormat;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.Operation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every file of every shared corpus suite gets the outcome its MANIFEST {@code expected} column
 * names: decoded at the given (upright) size, with alpha where it says so, matching its reference
 * where it names one; or rejected, with the named reason where it names one; and never a crash,
 * a hang (each file well under the job time limit) or a decode over the native memory budget.
 */
class CorpusTest {
    static final long MAX_PIXELS = 100_000_000L; // worker.max-pixels default
    static final long BUDGET = 1L << 30;          // worker.native-memory-bytes default
    static final Decode DECODE = new Decode(MAX_PIXELS);
    static final JobSpec FULL = new JobSpec(Map.of("full", List.of(new Operation.Encode("png", 80))), null);
    static final JobSpec THUMB = new JobSpec(Map.of("t", List.of(new Operation.Resize(64, 64, Operation.Fit.COVER, false, Operation.Gravity.SMART),
            new Operation.Encode("jpeg", 80))), null);
    static final Map<String, Integer> OUTCOMES = new ConcurrentHashMap<>();
    /** Per row, what became of the files in the formats added by issue #18 (TIFF, BMP, GIF, HEIC, AVIF). */
    static final Map<String, String> NEW_FORMATS = new ConcurrentHashMap<>();

    private static final Pattern UPRIGHT = Pattern.compile("upright (?:result must be )?(\\d+)x(\\d+)");
    private static final Pattern SIZE = Pattern.compile("(\\d+)x(\\d+)");
    /** "TIFF: decode 2464x3248 ... where TIFF input is accepted; otherwise ...": a format fairpix now reads. */
    private static final Pattern WHERE_SUPPORTED = Pattern.compile("^[A-Za-z]+: decode(?: (\\d+)x(\\d+))?.* where [A-Za-z]+ input is (?:accepted|supported)");
    /** The multi-page policy row: fairpix decodes the first page. */
    private static final Pattern FIRST_PAGE = Pattern.compile("first page (\\d+)x(\\d+)");
    private static final Pattern MATCH = Pattern.compile("(match|equal) (\\S+\\.(?:jpg|png))");

    @BeforeAll
    static void load() {
        OpenCv.ensureLoaded();
    }

    static Stream<Corpus.Row> rows() {
        List<Corpus.Row> rows = Corpus.rows();
        Assumptions.assumeFalse(rows.isEmpty(), "shared corpus not found (../shared/corpus); set -Dfairpix.corpus");
        return rows.stream();
    }

    /** What the expected column asks for. */
    record Expectation(boolean decode, boolean reject, String reason, Integer width, Integer height, boolean alpha, String reference, boolean equal) {
        static Expectation of(Corpus.Row row, byte[] data) {
            String e = row.get("expected");
            String lower = e.toLowerCase(Locale.ROOT);
            boolean allowed = ImageFormat.sniff(data) != null;
            // Rows that read "decode where <format> input is supported": fairpix reads TIFF, BMP, GIF,
            // HEIC and AVIF (issue #18), so they must decode, at the size given.
            Matcher supported = WHERE_SUPPORTED.matcher(e);
            if (allowed && supported.find()) {
                return new Expectation(true, false, null, supported.group(1) == null ? null : Integer.valueOf(supported.group(1)),
                        supported.group(2) == null ? null : Integer.valueOf(supported.group(2)),
                        lower.contains("with transparency") || lower.contains("transparency composited"), null, false);
            }
            Matcher firstPage = FIRST_PAGE.matcher(e);
            if (allowed && lower.startsWith("multi-page") && firstPage.find()) {
                return new Expectation(true, false, null, Integer.valueOf(firstPage.group(1)), Integer.valueOf(firstPage.group(2)), false, null, false);
            }
            if (e.startsWith("DECODE")) {
                Matcher m = UPRIGHT.matcher(e);
                if (!m.find()) {
                    m = SIZE.matcher(e);
                    if (!m.find()) m = null;
                }
                Matcher r = MATCH.matcher(e);
                String ref = r.find() ? r.group(2) : null;
                return new Expectation(true, false, null, m == null ? null : Integer.valueOf(m.group(1)), m == null ? null : Integer.valueOf(m.group(2)),
                        lower.contains("with alpha") || lower.contains("has transparency"), ref, ref != null && r.group(1).equals("equal"));
            }
            if (lower.startsWith("no crash")) return new Expectation(false, false, null, null, null, false, null, false);
            // REJECT..., "... -> clean rejection", "... unsupported format", and our allow-list policy
            // for the formats fairpix does not read (JPEG 2000). "Correct colours or a clean rejection"
            // (CIELAB TIFF) and the CMYK "policy" row are checked for what happened (FormatsTest checks the colour).
            String reason = null;
            if (!allowed) reason = "unsupported-format";
            else if (lower.contains("truncat") || row.file().contains("truncated")) reason = "truncated";
            else if (lower.contains("from the header") || lower.contains("pixel limit")) reason = "too-many-pixels";
            else if (lower.contains("animated") || row.file().startsWith("rotating-squares")) reason = "animated";
            boolean reject = lower.startsWith("reject") || lower.contains("rejection") || lower.contains("unsupported") || !allowed;
            return new Expectation(false, reject, reason, null, null, false, null, false);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void everyCorpusFileHasItsExpectedOutcome(Corpus.Row row) throws Exception {
        byte[] data = Files.readAllBytes(row.path());
        Expectation exp = Expectation.of(row, data);
        long t0 = System.nanoTime();
        Decoded decoded = null;
        Permanent rejected = null;
        try {
            DecodePlan plan = DECODE.plan(data, FULL);
            assertThat(NativeMemoryBudget.estimate(plan.decodedPixels(), 0)).as("native memory estimate").isLessThanOrEqualTo(BUDGET * 2);
            decoded = DECODE.apply(data, plan);
        } catch (Permanent e) {
            rejected = e;
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertThat(seconds).as("decode time, s").isLessThan(10);
        try {
            String outcome = rejected != null ? "rejected:" + rejected.reason() : "decoded";
            OUTCOMES.merge(row.suite() + " " + outcome, 1, Integer::sum);
            ImageFormat format = ImageFormat.sniff(data);
            if (format != null && java.util.EnumSet.of(ImageFormat.TIFF, ImageFormat.BMP, ImageFormat.GIF, ImageFormat.HEIC, ImageFormat.AVIF).contains(format)) {
                NEW_FORMATS.put(row.toString(), format.id() + " " + outcome + (decoded != null ? " " + decoded.image().cols() + "x" + decoded.image().rows() + " c" + decoded.image().channels() : ""));
            }
            if (exp.decode()) {
                if (rejected != null) fail(row + " must decode (" + row.get("expected") + ") but was rejected: " + rejected.reason() + " " + rejected.getMessage());
                if (exp.width() != null) {
                    String want = exp.width() + "x" + exp.height();
                    com.fairpix.core.image.ImageHeader h = com.fairpix.core.image.ImageHeader.read(data);
                    String stated = h.displayWidth() + "x" + h.displayHeight();
                    if (!stated.equals(want) && row.suite().equals("pngsuite") && want.equals("32x32")) {
                        // PngSuite's pHYs samples (cdhn2c08 32x8, cdsn2c08 8x8) are not 32x32: the
                        // MANIFEST repeats its group's blanket size. Their IHDR is the truth.
                        System.out.println("MANIFEST size " + want + " differs from the IHDR of " + row + ": " + stated);
                        want = stated;
                    }
                    assertThat(decoded.image().cols() + "x" + decoded.image().rows()).as(row + " size").isEqualTo(want);
                }
                if (exp.alpha()) assertThat(decoded.image().channels()).as(row + " keeps alpha").isEqualTo(4);
                if (exp.reference() != null && !exp.reference().equals(row.file())) {
                    Path ref = row.path().resolveSibling(exp.reference());
                    if (Files.isRegularFile(ref)) {
                        try (Decoded r = DECODE.apply(Files.readAllBytes(ref), FULL)) {
                            assertThat(r.image().size()).as(row + " same size as " + exp.reference()).isEqualTo(decoded.image().size());
                            double mad = TestImages.mad(decoded.image(), r.image());
                            assertThat(mad).as(row + " mean abs diff to " + exp.reference()).isLessThan(exp.equal() ? 1.0 : 5.0);
                        }
                    }
                }
            } else if (exp.reject()) {
                if (rejected == null) fail(row + " must be rejected (" + row.get("expected") + ") but decoded " + decoded.image().size());
                if (exp.reason() != null) assertThat(rejected.reason()).as(row + " reason").isEqualTo(exp.reason());
            }
            if (decoded != null) {
                // The whole pipeline must also get through: smart cover crop + JPEG.
                Map<String, ImagePipeline.Output> out = new ImagePipeline(MAX_PIXELS).process(data, THUMB);
                assertThat(out.get("t").data()).isNotEmpty();
            }
        } finally {
            if (decoded != null) decoded.close();
        }
    }

    @AfterAll
    static void report() {
        System.out.println("corpus outcomes (suite outcome: files):");
        new TreeMap<>(OUTCOMES).forEach((k, v) -> System.out.printf("  %-55s %4d%n", k, v));
        System.out.println("TIFF, BMP, GIF, HEIC and AVIF rows:");
        new TreeMap<>(NEW_FORMATS).forEach((k, v) -> System.out.printf("  %-55s %s%n", k, v));
    }
}
