package com.fairpix.worker.process;

import com.fairpix.core.Corpus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fairpix.core.error.Permanent;
import com.fairpix.core.image.ImageFormat;
import com.fairpix.core.image.ImageHeader;
import com.fairpix.core.job.JobSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.opencv.core.Core;
import org.opencv.core.Mat;
import org.opencv.imgcodecs.Imgcodecs;

/** One job end to end in memory: decode once, every variant's operations, encode. */
class ImagePipelineTest {
    private static final JobSpec THUMB = JobSpec.parse("{\"variants\":{\"thumb\":[{\"op\":\"resize\",\"width\":256,\"height\":256}]}}");
    private static final Pattern ORIENTED = Pattern.compile("(Landscape|Portrait)_\\d\\.jpg");
    private static ImagePipeline pipeline;

    @BeforeAll
    static void create() {
        pipeline = new ImagePipeline(100_000_000L);
    }

    static Stream<String> orientationExamples() {
        Path dir = Corpus.root().resolve("exif-orientation");
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> ORIENTED.matcher(n).matches())
                    .filter(n -> !n.endsWith("_1.jpg")).sorted().toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("orientationExamples")
    void everyOrientationComesOutUprightAndMatchesOrientationOne(String file) {
        String reference = file.replaceFirst("_\\d\\.jpg$", "_1.jpg");
        boolean landscape = file.startsWith("Landscape");

        Mat out = thumbnail("exif-orientation/" + file);
        Mat ref = thumbnail("exif-orientation/" + reference);

        assertThat(out.cols()).isEqualTo(landscape ? 256 : 171);
        assertThat(out.rows()).isEqualTo(landscape ? 171 : 256);
        assertThat(perChannel(TestImages.meanAbsDiff(out, ref))).as("mean abs diff per channel vs %s", reference)
                .allSatisfy(d -> assertThat(d).isLessThan(10.0));
        out.release();
        ref.release();
    }

    @Test
    void warmUpRunsItsJobsThroughThePipelineAndReportsAFailure() {
        assertThat(pipeline.warmUp()).as("the warm-up's own jobs succeed").isEmpty();
        // A pipeline whose pixel budget refuses even the warm-up's 96×64 source says so, not throws.
        assertThat(new ImagePipeline(100L).warmUp()).as("a failing warm-up reports why").isPresent();
    }

    @Test
    void theComparisonWouldNoticeAWrongOrientation() {
        Mat ref = thumbnail("exif-orientation/Landscape_1.jpg");
        Mat flipped = new Mat();
        Core.flip(ref, flipped, -1); // what orientation 3 looks like when it is not applied

        double[] diff = TestImages.meanAbsDiff(flipped, ref);

        assertThat(diff[0] + diff[1] + diff[2]).isGreaterThan(3 * 10.0);
        ref.release();
        flipped.release();
    }

    @Test
    void cameraTrapPhotoStoredRotatedMatchesItsUprightOriginal() {
        Mat rotated = thumbnail("cameratrap-photos/african_elephants_with_exif_orientation.jpg");
        Mat upright = thumbnail("cameratrap-photos/african_elephants.jpg");

        assertThat(rotated.cols()).isEqualTo(256);
        assertThat(rotated.rows()).isEqualTo(192);
        assertThat(perChannel(TestImages.meanAbsDiff(rotated, upright))).allSatisfy(d -> assertThat(d).isLessThan(10.0));
        rotated.release();
        upright.release();
    }

    @Test
    void variantsComeOutInSpecOrderWithTheirOwnSizesAndFormats() throws Exception {
        JobSpec spec = JobSpec.parse("""
                {"variants":{
                  "small":[{"op":"resize","width":64,"height":64,"fit":"cover"},{"op":"encode","format":"webp","quality":70}],
                  "full":[{"op":"encode","format":"png"}],
                  "wide":[{"op":"resize","width":300,"height":100,"fit":"fill"}]}}
                """);

        Map<String, ImagePipeline.Output> out = pipeline.process(Corpus.bytes("sharp-fixtures/Landscape_9.jpg"), spec);

        assertThat(out.keySet()).containsExactly("small", "full", "wide");
        assertOutput(out.get("small"), ImageFormat.WEBP, 64, 64);
        assertOutput(out.get("full"), ImageFormat.PNG, 480, 369);
        assertOutput(out.get("wide"), ImageFormat.JPEG, 300, 100);
    }

    @Test
    void aVariantDoesNotChangeTheSourceTheNextOneSees() {
        JobSpec spec = JobSpec.parse("""
                {"variants":{"tiny":[{"op":"resize","width":8}],"again":[{"op":"resize","width":480}],"tiny2":[{"op":"resize","width":8}]}}
                """);

        Map<String, ImagePipeline.Output> out = pipeline.process(Corpus.bytes("sharp-fixtures/Landscape_9.jpg"), spec);

        assertThat(out.get("again").width()).isEqualTo(480);
        assertThat(out.get("again").height()).isEqualTo(369);
        assertThat(out.get("tiny2").data()).isEqualTo(out.get("tiny").data());
    }

    @Test
    void fullyTransparentPngBecomesWhiteInJpeg() {
        JobSpec spec = JobSpec.parse("{\"variants\":{\"j\":[{\"op\":\"encode\",\"format\":\"jpeg\"}],\"p\":[{\"op\":\"encode\",\"format\":\"png\"}]}}");

        Map<String, ImagePipeline.Output> out = pipeline.process(Corpus.bytes("sharp-fixtures/full-transparent.png"), spec);

        Mat jpeg = TestImages.decode(out.get("j").data(), Imgcodecs.IMREAD_COLOR);
        assertThat(TestImages.mean(jpeg)).startsWith(new double[] {255, 255, 255}, org.assertj.core.data.Offset.offset(5.0));
        Mat png = TestImages.decode(out.get("p").data(), Imgcodecs.IMREAD_UNCHANGED);
        assertThat(png.channels()).as("PNG keeps the alpha").isEqualTo(4);
        assertThat(TestImages.mean(png)[3]).isZero();
        jpeg.release();
        png.release();
    }

    @Test
    void sixteenBitPngComesOutLikeItsEightBitTwin() {
        JobSpec spec = JobSpec.parse("{\"variants\":{\"p\":[{\"op\":\"resize\",\"width\":300},{\"op\":\"encode\",\"format\":\"png\"}]}}");

        Mat sixteen = TestImages.decode(pipeline.process(Corpus.bytes("sharp-fixtures/Flag_of_the_Netherlands-16bit.png"), spec).get("p").data(), Imgcodecs.IMREAD_UNCHANGED);
        Mat eight = TestImages.decode(pipeline.process(Corpus.bytes("sharp-fixtures/Flag_of_the_Netherlands.png"), spec).get("p").data(), Imgcodecs.IMREAD_UNCHANGED);

        assertThat(sixteen.depth()).isEqualTo(eight.depth());
        assertThat(perChannel(TestImages.meanAbsDiff(sixteen, eight))).allSatisfy(d -> assertThat(d).isLessThan(1.0));
        sixteen.release();
        eight.release();
    }

    @Test
    void truncatedJpegFailsPermanentlyAsTruncated() {
        byte[] whole = Corpus.bytes("exif-orientation/Landscape_1.jpg");

        Permanent f = catchThrowableOfType(Permanent.class, () -> pipeline.process(Arrays.copyOf(whole, whole.length / 2), THUMB));

        assertThat(f).isNotNull();
        assertThat(f.reason()).isEqualTo("truncated");
    }

    @Test
    void textFileFailsPermanentlyAsUnsupportedFormat() {
        byte[] text = "variants: thumb\nthis is not an image\n".getBytes(StandardCharsets.UTF_8);

        Permanent f = catchThrowableOfType(Permanent.class, () -> pipeline.process(text, THUMB));

        assertThat(f).isNotNull();
        assertThat(f.reason()).isEqualTo("unsupported-format");
    }

    @Test
    void anInterruptedJobStopsBetweenSteps() {
        byte[] jpeg = TestImages.jpeg(64, 64);
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> pipeline.process(jpeg, THUMB)).hasMessageContaining("interrupted");
        } finally {
            Thread.interrupted();
        }
    }

    private static java.util.List<Double> perChannel(double[] values) {
        return Arrays.stream(values, 0, 3).boxed().toList();
    }

    private static Mat thumbnail(String relative) {
        ImagePipeline.Output out = pipeline.process(Corpus.bytes(relative), THUMB).get("thumb");
        assertThat(out.encode().format()).isEqualTo("jpeg");
        return TestImages.decode(out.data(), Imgcodecs.IMREAD_COLOR);
    }

    private static void assertOutput(ImagePipeline.Output out, ImageFormat format, int w, int h) throws Exception {
        assertThat(out.width()).isEqualTo(w);
        assertThat(out.height()).isEqualTo(h);
        ImageHeader header = ImageHeader.read(out.data());
        assertThat(header.format()).isEqualTo(format);
        assertThat(header.width()).as("encoded width").isEqualTo(w);
        assertThat(header.height()).as("encoded height").isEqualTo(h);
        assertThat(header.orientation()).isEqualTo(1);
    }
}
