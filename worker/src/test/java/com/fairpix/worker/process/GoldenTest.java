package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.Corpus;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.Operation;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.opencv.core.Core;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.core.MatOfByte;
import org.opencv.core.Scalar;
import org.opencv.imgcodecs.Imgcodecs;

/**
 * Pixel checks against references: EXIF orientation (every example vs its {@code _1}), alpha
 * flattened over the background for JPEG, 16-bit scaled (not clipped), CMYK JPEG colour. Each
 * prints its number so the note can quote it.
 */
class GoldenTest {
    static final Decode DECODE = new Decode(100_000_000L);
    static final JobSpec FULL = new JobSpec(Map.of("full", List.of(new Operation.Encode("png", 80))), null);
    private static final Pattern ORIENTED = Pattern.compile("(.+)_(\\d)\\.jpg");

    @BeforeAll
    static void load() {
        OpenCv.ensureLoaded();
    }

    static Mat decode(Path p) throws IOException {
        return DECODE.apply(Files.readAllBytes(p), FULL).image();
    }

    static Mat decode(byte[] data) {
        return DECODE.apply(data, FULL).image();
    }

    static Path corpus(String suite, String name) {
        return Corpus.path(suite + "/" + name);
    }

    static Stream<Path> exifExamples() throws IOException {
        Path root = Corpus.root();
        try (Stream<Path> s = Files.list(root.resolve("exif-orientation"))) {
            return s.filter(p -> ORIENTED.matcher(p.getFileName().toString()).matches()).sorted().toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("exifExamples")
    void everyExifExampleIsUprightAndMatchesItsOrientation1Twin(Path file) throws IOException {
        Matcher m = ORIENTED.matcher(file.getFileName().toString());
        assertThat(m.matches()).isTrue();
        Path ref = file.resolveSibling(m.group(1) + "_1.jpg");
        Assumptions.assumeTrue(Files.isRegularFile(ref), ref + " missing");
        Mat a = decode(file), b = decode(ref);
        assertThat(a.size()).isEqualTo(b.size());
        double mad = TestImages.mad(a, b);
        System.out.printf("golden exif %s vs %s: MAD %.2f%n", file.getFileName(), ref.getFileName(), mad);
        assertThat(mad).isLessThan(5.0);
    }

    @Test
    void cameraTrapPhotoWithOrientation6MatchesTheUprightOriginal() throws IOException {
        Mat a = decode(corpus("cameratrap-photos", "african_elephants_with_exif_orientation.jpg"));
        Mat b = decode(corpus("cameratrap-photos", "african_elephants.jpg"));
        assertThat(a.size()).isEqualTo(b.size());
        double mad = TestImages.mad(a, b);
        System.out.printf("golden exif african_elephants_with_exif_orientation vs african_elephants: MAD %.2f%n", mad);
        assertThat(mad).isLessThan(5.0);
    }

    @Test
    void fullyTransparentPngBecomesTheBackgroundColourInJpegNeverTheHiddenGreen() throws IOException {
        byte[] png = Files.readAllBytes(corpus("sharp-fixtures", "full-transparent.png"));
        Scalar white = meanOfJpeg(png, null);
        Scalar red = meanOfJpeg(png, "#ff0000");
        System.out.printf("golden alpha full-transparent.png -> JPEG: default %s, background #ff0000 %s%n", white, red);
        assertThat(white.val[0]).isGreaterThan(252);
        assertThat(white.val[1]).isGreaterThan(252);
        assertThat(white.val[2]).isGreaterThan(252);
        assertThat(red.val[2]).isGreaterThan(250); // BGR: red channel last
        assertThat(red.val[1]).isLessThan(5);
        assertThat(red.val[0]).isLessThan(5);
    }

    @Test
    void halfTransparentFlagIsCompositedHalfwayToTheBackground() throws IOException {
        byte[] alphaPng = Files.readAllBytes(corpus("sharp-fixtures", "Flag_of_the_Netherlands-alpha.png"));
        Mat flag = decode(corpus("sharp-fixtures", "Flag_of_the_Netherlands.png"));
        Mat jpeg = jpegRoundTrip(alphaPng, null, 95);
        // Reference: flag × a + white × (1 − a), with the file's own alpha.
        Mat src = decode(alphaPng);
        Mat expected = Flatten.apply(src, Flatten.WHITE);
        double mad = TestImages.mad(jpeg, expected);
        Scalar alpha = Core.mean(channel(src, 3));
        System.out.printf("golden alpha Flag-alpha (mean alpha %.1f) -> JPEG q95 vs flag over white: MAD %.2f; vs opaque flag %.2f%n",
                alpha.val[0], mad, TestImages.mad(jpeg, flag));
        assertThat(mad).isLessThan(3.0);
    }

    @Test
    void logoThatLivesOnlyInTheAlphaChannelIsVisibleOnWhite() throws IOException {
        byte[] png = Files.readAllBytes(corpus("sharp-fixtures", "image-in-alpha.png"));
        Mat jpeg = jpegRoundTrip(png, null, 90);
        org.opencv.core.MatOfDouble mean = new org.opencv.core.MatOfDouble(), sd = new org.opencv.core.MatOfDouble();
        Core.meanStdDev(jpeg, mean, sd);
        System.out.printf("golden alpha image-in-alpha.png on white: stddev %.1f%n", sd.toArray()[0]);
        assertThat(sd.toArray()[0]).isGreaterThan(20);
    }

    @Test
    void sixteenBitFlagScalesToTheEightBitFlag() throws IOException {
        Mat sixteen = decode(corpus("sharp-fixtures", "Flag_of_the_Netherlands-16bit.png"));
        Mat eight = decode(corpus("sharp-fixtures", "Flag_of_the_Netherlands.png"));
        double mad = TestImages.mad(sixteen, eight);
        System.out.printf("golden 16-bit Flag-16bit vs 8-bit flag: MAD %.3f%n", mad);
        assertThat(mad).isLessThan(0.5);
    }

    @Test
    void sixteenBitPngSuiteFilesAreDividedBy257NeverClipped() throws IOException {
        for (String name : List.of("basn2c16.png", "basn0g16.png", "basn6a16.png", "basn4a16.png")) {
            byte[] data = Files.readAllBytes(corpus("pngsuite", name));
            Mat raw = Imgcodecs.imdecode(new MatOfByte(data), Imgcodecs.IMREAD_UNCHANGED);
            assertThat(raw.depth()).isEqualTo(CvType.CV_16U);
            Mat scaled = new Mat();
            raw.convertTo(scaled, CvType.CV_8U, 1 / 257.0);
            Mat ours = decode(data);
            // Compare the first channel (grey files become BGR(A) with equal channels).
            double mad = TestImages.mad(channel(ours, 0), channel(scaled, 0));
            Mat clipped = new Mat();
            raw.convertTo(clipped, CvType.CV_8U);
            System.out.printf("golden 16-bit %s: mean ours %.1f, ÷257 %.1f, clipped %.1f, MAD %.3f%n", name,
                    Core.mean(channel(ours, 0)).val[0], Core.mean(channel(scaled, 0)).val[0], Core.mean(channel(clipped, 0)).val[0], mad);
            assertThat(mad).isLessThan(0.5);
        }
    }

    @Test
    void cmykJpegColoursMatchTheRgbReference() throws IOException {
        Mat cmyk = decode(resource("golden/elephants-cmyk.jpg"));
        Mat rgb = decode(resource("golden/elephants-rgb.png"));
        double mad = TestImages.mad(cmyk, rgb);
        System.out.printf("golden CMYK elephants-cmyk.jpg vs elephants-rgb.png: MAD %.2f%n", mad);
        assertThat(mad).isLessThan(3.0);
    }

    @Test
    void cmykCorpusFileMatchesItsRgbOriginalWhereTheCorpusHasIt() throws IOException {
        Path cmyk = Corpus.mayBeHeldBack("cameratrap-photos/african_elephants_cmyk.jpg");
        double mad = TestImages.mad(decode(cmyk), decode(corpus("cameratrap-photos", "african_elephants.jpg")));
        System.out.printf("golden CMYK african_elephants_cmyk vs african_elephants: MAD %.2f%n", mad);
        assertThat(mad).isLessThan(3.0);
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = GoldenTest.class.getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }

    private static Mat channel(Mat m, int c) {
        Mat out = new Mat();
        Core.extractChannel(m, out, Math.min(c, m.channels() - 1));
        return out;
    }

    private static Mat jpegRoundTrip(byte[] source, String background, int quality) {
        List<Operation> ops = background == null
                ? List.of(new Operation.Encode("jpeg", quality))
                : List.of(new Operation.Background(background), new Operation.Encode("jpeg", quality));
        byte[] jpeg = new ImagePipeline(100_000_000L).process(source, new JobSpec(Map.of("v", ops), null)).get("v").data();
        return Imgcodecs.imdecode(new MatOfByte(jpeg), Imgcodecs.IMREAD_COLOR);
    }

    private static Scalar meanOfJpeg(byte[] source, String background) {
        return Core.mean(jpegRoundTrip(source, background, 90));
    }
}
