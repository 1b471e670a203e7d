package com.fairpix.worker.process;

import com.fairpix.core.Corpus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fairpix.core.error.FairpixException;
import com.fairpix.core.error.Permanent;
import com.fairpix.core.image.ImageFormat;
import com.fairpix.core.image.ImageHeader;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.Operation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.core.Scalar;
import org.opencv.imgcodecs.Imgcodecs;

/** The decode step: header gate, shrink-on-load choice, orientation, normalisation to 8-bit BGR(A). */
class DecodeTest {
    private static final long MAX_PIXELS = 100_000_000L; // worker.max-pixels default
    private static final JobSpec ORIGINAL = JobSpec.parse("{\"variants\":{\"copy\":[{\"op\":\"encode\",\"format\":\"png\"}]}}");
    private final Decode decode = new Decode(MAX_PIXELS);

    @BeforeAll
    static void loadOpenCv() {
        OpenCv.ensureLoaded();
    }

    // --- reductionFor: which JPEG scale denominator ------------------------------------------

    @Test
    void thumbnailOfA2048x1536JpegDecodesAtOneEighth() throws Exception {
        ImageHeader header = ImageHeader.read(Corpus.bytes("cameratrap-photos/african_elephants.jpg"));

        assertThat(header.width()).isEqualTo(2048);
        assertThat(Decode.reductionFor(header, spec(resize(256, 256, "contain")))).isEqualTo(8);
        assertThat(Decode.reductionFor(header, spec(resize(256, null, "contain")))).isEqualTo(8);
    }

    @Test
    void variantWithoutResizeNeedsTheFullSize() {
        ImageHeader header = new ImageHeader(ImageFormat.JPEG, 2048, 1536, 1, false, true);
        JobSpec spec = JobSpec.parse("""
                {"variants":{"thumb":[{"op":"resize","width":64}],"original":[{"op":"encode","format":"webp"}]}}
                """);

        assertThat(Decode.reductionFor(header, spec)).isEqualTo(1);
    }

    @Test
    void theLargestVariantDecidesTheReduction() {
        ImageHeader header = new ImageHeader(ImageFormat.JPEG, 2048, 1536, 1, false, true);
        JobSpec spec = JobSpec.parse("""
                {"variants":{"thumb":[{"op":"resize","width":128}],"medium":[{"op":"resize","width":1024,"height":1024}]}}
                """);

        assertThat(Decode.reductionFor(header, spec)).isEqualTo(2);
    }

    @Test
    void coverNeedsTheShortSideSoItShrinksLessThanContain() {
        ImageHeader header = new ImageHeader(ImageFormat.JPEG, 2048, 1536, 1, false, true);

        // contain 256x256 -> 256x192 output: 1/8 (256x192) suffices; cover 256x256 needs 1536/256 = 6 -> 1/4.
        assertThat(Decode.reductionFor(header, spec(resize(256, 256, "contain")))).isEqualTo(8);
        assertThat(Decode.reductionFor(header, spec(resize(256, 256, "cover")))).isEqualTo(4);
        assertThat(Decode.reductionFor(header, spec(resize(256, 256, "fill")))).isEqualTo(4);
    }

    @Test
    void reductionIsChosenOnTheUprightSize() {
        // Stored 1536x2048 with orientation 6: shown 2048x1536. A 256-high box needs 1536/256 = 6 -> 1/4;
        // judged on the stored height (2048) it would wrongly pick 1/8 and decode only 192 rows.
        ImageHeader rotated = new ImageHeader(ImageFormat.JPEG, 1536, 2048, 6, false, true);

        assertThat(Decode.reductionFor(rotated, spec(resize(null, 256, "contain")))).isEqualTo(4);
    }

    @Test
    void upscalingVariantGetsNoReduction() {
        ImageHeader small = new ImageHeader(ImageFormat.JPEG, 300, 200, 1, false, true);

        assertThat(Decode.reductionFor(small, spec(resize(600, 400, "contain")))).isEqualTo(1);
    }

    @Test
    void reductionNeverLeavesADecodeSmallerThanTheRequestedOutput() {
        // libjpeg's reduced size is ceil(side / r); the resize after it must never have to enlarge.
        int[][] sizes = {{2048, 1536}, {1046, 802}, {3264, 2448}, {1000, 333}, {333, 1000}, {4000, 300}, {517, 389}, {20000, 14000}, {64, 64}};
        List<Operation.Resize> ops = new ArrayList<>();
        for (int box : new int[] {16, 100, 256, 257, 300, 511, 512, 1000, 1024, 2000}) {
            for (String fit : List.of("contain", "cover", "fill")) {
                ops.add(new Operation.Resize(box, (int) Math.round(box * 0.75), Operation.Fit.valueOf(fit.toUpperCase()), false));
                ops.add(new Operation.Resize((int) Math.round(box * 0.6), box, Operation.Fit.valueOf(fit.toUpperCase()), false));
            }
            ops.add(new Operation.Resize(box, null, Operation.Fit.CONTAIN, false));
            ops.add(new Operation.Resize(null, box, Operation.Fit.CONTAIN, false));
        }
        int checked = 0;
        for (int[] size : sizes) {
            for (int orientation : new int[] {1, 6}) {
                ImageHeader h = new ImageHeader(ImageFormat.JPEG, size[0], size[1], orientation, false, true);
                for (Operation.Resize op : ops) {
                    int r = Decode.reductionFor(h, new JobSpec(Map.of("v", List.of(op, new Operation.Encode("jpeg", 80))), null));
                    assertThat(r).isIn(1, 2, 4, 8);
                    int dw = ceilDiv(h.displayWidth(), r), dh = ceilDiv(h.displayHeight(), r);
                    double scale = scaleApplied(op, dw, dh);
                    double fullScale = scaleApplied(op, h.displayWidth(), h.displayHeight());
                    if (fullScale <= 1) {
                        assertThat(scale).as("%dx%d o%d %s -> 1/%d = %dx%d", size[0], size[1], orientation, op, r, dw, dh).isLessThanOrEqualTo(1.0 + 1e-9);
                    } else {
                        assertThat(r).as("an enlarging resize gets the full decode").isEqualTo(1);
                    }
                    checked++;
                }
            }
        }
        assertThat(checked).isGreaterThan(500);
    }

    @ParameterizedTest(name = "{0}x{1} {2} {3}x{4}")
    @CsvSource({
        "2048, 1536, contain, 256, 256",
        "2048, 1536, cover, 256, 256",
        "2048, 1536, fill, 300, 100",
        "1046, 802, contain, 256, 256",
        "1046, 802, cover, 130, 100",
        "1000, 333, cover, 120, 120",
        "333, 1000, contain, 40, 125",
        "4000, 300, cover, 500, 37",
        "517, 389, cover, 64, 48",
    })
    void realReducedDecodeStillCoversTheOutput(int w, int h, String fit, int bw, int bh) {
        byte[] jpeg = TestImages.jpeg(w, h);
        Operation.Resize op = new Operation.Resize(bw, bh, Operation.Fit.valueOf(fit.toUpperCase()), false);
        JobSpec spec = new JobSpec(Map.of("v", List.of(op, new Operation.Encode("jpeg", 80))), null);

        try (Decoded reduced = decode.apply(jpeg, spec); Decoded full = decode.apply(jpeg, ORIGINAL)) {
            Mat fromReduced = Resize.apply(reduced.image(), op);
            Mat fromFull = Resize.apply(full.image(), op);

            assertThat(full.reduction()).isEqualTo(1);
            assertThat(reduced.image().cols()).as("decoded width").isGreaterThanOrEqualTo(fromReduced.cols());
            assertThat(reduced.image().rows()).as("decoded height").isGreaterThanOrEqualTo(fromReduced.rows());
            assertThat(fromReduced.cols()).isCloseTo(fromFull.cols(), org.assertj.core.data.Offset.offset(1));
            assertThat(fromReduced.rows()).isCloseTo(fromFull.rows(), org.assertj.core.data.Offset.offset(1));
            fromReduced.release();
            fromFull.release();
        }
    }

    @Test
    void thumbnailSpecReallyDecodesTheCameraTrapPhotoAtOneEighth() {
        byte[] jpeg = Corpus.bytes("cameratrap-photos/african_elephants.jpg");

        try (Decoded d = decode.apply(jpeg, spec(resize(256, 256, "contain")))) {
            assertThat(d.reduction()).isEqualTo(8);
            assertThat(d.image().cols()).isEqualTo(256);
            assertThat(d.image().rows()).isEqualTo(192);
            assertThat(d.image().type()).isEqualTo(CvType.CV_8UC3);
        }
    }

    // --- orientation and pixel formats ---------------------------------------------------------

    @Test
    void exifOrientationIsAppliedOnDecode() {
        try (Decoded d = decode.apply(Corpus.bytes("exif-orientation/Landscape_6.jpg"), ORIGINAL)) {
            assertThat(d.image().cols()).isEqualTo(1800);
            assertThat(d.image().rows()).isEqualTo(1200);
        }
    }

    @Test
    void sixteenBitPngIsScaledNotClipped() {
        Mat sixteen = TestImages.filled(64, 48, CvType.CV_16UC3, new Scalar(32768, 32768, 32768));
        byte[] png = TestImages.encode(sixteen, ".png");
        sixteen.release();

        try (Decoded d = decode.apply(png, ORIGINAL)) {
            assertThat(d.image().depth()).isEqualTo(CvType.CV_8U);
            assertThat(d.image().channels()).isEqualTo(3);
            assertThat(TestImages.mean(d.image())[0]).as("32768 / 257").isCloseTo(127.5, org.assertj.core.data.Offset.offset(1.0));
            assertThat(TestImages.mean(d.image())[2]).isCloseTo(127.5, org.assertj.core.data.Offset.offset(1.0));
        }
    }

    @Test
    void sixteenBitFlagDecodesToTheSamePixelsAsTheEightBitFlag() {
        try (Decoded sixteen = decode.apply(Corpus.bytes("sharp-fixtures/Flag_of_the_Netherlands-16bit.png"), ORIGINAL);
             Decoded eight = decode.apply(Corpus.bytes("sharp-fixtures/Flag_of_the_Netherlands.png"), ORIGINAL)) {
            double[] diff = TestImages.meanAbsDiff(sixteen.image(), eight.image());

            assertThat(diff[0] + diff[1] + diff[2]).isLessThan(1.0);
        }
    }

    @Test
    void greyPngBecomesThreeChannelsAndGreyWithAlphaFour() {
        try (Decoded grey = decode.apply(Corpus.bytes("pngsuite/basn0g08.png"), ORIGINAL);
             Decoded greyAlpha = decode.apply(Corpus.bytes("sharp-fixtures/grey-8bit-alpha.png"), ORIGINAL);
             Decoded rgba16 = decode.apply(Corpus.bytes("pngsuite/basn6a16.png"), ORIGINAL)) {
            assertThat(grey.image().type()).isEqualTo(CvType.CV_8UC3);
            assertThat(greyAlpha.image().type()).isEqualTo(CvType.CV_8UC4);
            assertThat(greyAlpha.hasAlpha()).isTrue();
            assertThat(rgba16.image().type()).isEqualTo(CvType.CV_8UC4);
        }
    }

    @Test
    void webpWithAlphaKeepsItsAlpha() {
        try (Decoded d = decode.apply(Corpus.bytes("sharp-fixtures/5_webp_a.webp"), ORIGINAL)) {
            assertThat(d.image().type()).isEqualTo(CvType.CV_8UC4);
            assertThat(d.image().cols()).isEqualTo(300);
        }
    }

    // --- refusals ---------------------------------------------------------------------------

    @Test
    void truncatedJpegIsRefusedNotDecodedAsGrey() {
        byte[] whole = Corpus.bytes("cameratrap-photos/african_elephants.jpg");

        assertThat(failure(Arrays.copyOf(whole, whole.length / 2)).reason()).isEqualTo("truncated");
        assertThat(failure(Corpus.bytes("sharp-fixtures/truncated.jpg")).reason()).isEqualTo("truncated");
    }

    @Test
    void truncatedPngAndWebpFailPermanently() {
        byte[] png = Corpus.bytes("sharp-fixtures/with-alpha.png");
        byte[] webp = Corpus.bytes("sharp-fixtures/4.webp");

        assertThat(failure(Arrays.copyOf(png, png.length / 2)).reason()).isEqualTo("truncated");
        // WebP has no end marker the header reader checks; the decoder refuses the short data instead.
        assertThat(failure(Arrays.copyOf(webp, webp.length / 2)).reason()).isIn("truncated", "undecodable");
    }

    @Test
    void textAndJpeg2000AreUnsupportedFormatsAndAnAnimatedGifIsAnimated() {
        assertThat(failure("just some text".getBytes(StandardCharsets.UTF_8)).reason()).isEqualTo("unsupported-format");
        assertThat(failure(Corpus.bytes("sharp-fixtures/rotating-squares.gif")).reason()).isEqualTo("animated");
        assertThat(failure(Corpus.bytes("sharp-fixtures/relax.jp2")).reason()).isEqualTo("unsupported-format");
        assertThat(failure(new byte[0]).reason()).isEqualTo("unsupported-format");
    }

    @Test
    void decompressionBombsAreRefusedFromTheHeader() {
        // too-many-pixels is only raised from the header, before imdecode allocates anything.
        FairpixException png = failure(Corpus.bytes("sharp-fixtures/65536-uint32-limit.png"));
        FairpixException jpeg = failure(Corpus.bytes("sharp-fixtures/giant-image.jpg"));

        assertThat(png.reason()).isEqualTo("too-many-pixels");
        assertThat(png.getMessage()).contains("65536x65536");
        assertThat(jpeg.reason()).isEqualTo("too-many-pixels");
        assertThat(jpeg.getMessage()).contains("20000x14000");
    }

    @Test
    void pixelLimitIsTheWorkersSetting() {
        byte[] jpeg = TestImages.jpeg(100, 100);

        assertThat(catchThrowableOfType(Permanent.class, () -> new Decode(9_999).apply(jpeg, ORIGINAL)).reason()).isEqualTo("too-many-pixels");
        try (Decoded d = new Decode(10_000).apply(jpeg, ORIGINAL)) {
            assertThat(d.image().cols()).isEqualTo(100);
        }
    }

    @Test
    void brokenHeadersAndUndecodableDataArePermanentFailures() {
        byte[] png = Corpus.bytes("sharp-fixtures/Flag_of_the_Netherlands.png");

        assertThat(failure(Arrays.copyOf(png, 8)).reason()).isEqualTo("undecodable-header");
        assertThat(failure(Corpus.bytes("pngsuite/xd9n2c08.png")).reason()).as("bit depth 99").isEqualTo("undecodable");
        assertThat(failure(Corpus.bytes("pngsuite/xcsn0g01.png")).reason()).as("IDAT CRC wrong").isEqualTo("undecodable");
        assertThat(failure(Corpus.bytes("sharp-fixtures/rotating-squares.webp")).reason()).as("animated WebP").isIn("undecodable", "animated");
    }

    @Test
    void everyFuzzedFileDecodesOrFailsPermanently() {
        List<Corpus.Row> rows = Corpus.manifest("imagetestsuite");
        org.junit.jupiter.api.Assumptions.assumeFalse(rows.isEmpty());
        JobSpec thumb = spec(resize(128, 128, "contain"));
        int decoded = 0, refused = 0;
        for (Corpus.Row row : rows) {
            byte[] data = Corpus.bytes(row.relative());
            for (JobSpec spec : List.of(ORIGINAL, thumb)) {
                try (Decoded d = decode.apply(data, spec)) {
                    assertThat(d.image().depth()).isEqualTo(CvType.CV_8U);
                    assertThat(d.image().channels()).as(row.file()).isIn(3, 4);
                    decoded++;
                } catch (Permanent e) {
                    refused++;
                } catch (RuntimeException e) {
                    throw new AssertionError(row.file() + " escaped as " + e, e);
                }
            }
        }
        assertThat(decoded).isPositive();
        assertThat(refused).isPositive();
    }

    private FairpixException failure(byte[] data) {
        Permanent f = catchThrowableOfType(Permanent.class, () -> decode.apply(data, ORIGINAL).close());
        assertThat(f).as("a permanent failure").isNotNull();
        return f;
    }

    static Operation.Resize resize(Integer w, Integer h, String fit) {
        return new Operation.Resize(w, h, Operation.Fit.valueOf(fit.toUpperCase()), false);
    }

    static JobSpec spec(Operation.Resize op) {
        return new JobSpec(Map.of("v", List.of(op, new Operation.Encode("jpeg", 80))), null);
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }

    /** The scale factor Resize applies to a dw×dh source for {@code op} (both sides for fill: the larger). */
    private static double scaleApplied(Operation.Resize op, int dw, int dh) {
        double sx = op.width() == null ? Double.NaN : (double) op.width() / dw;
        double sy = op.height() == null ? Double.NaN : (double) op.height() / dh;
        return switch (op.fit()) {
            case CONTAIN, INSIDE -> Double.isNaN(sx) ? sy : Double.isNaN(sy) ? sx : Math.min(sx, sy);
            case COVER, FILL, OUTSIDE -> Math.max(sx, sy);
        };
    }
}
