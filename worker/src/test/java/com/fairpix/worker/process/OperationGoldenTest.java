package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.job.JobSpec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.opencv.core.Core;
import org.opencv.core.Mat;
import org.opencv.core.MatOfByte;
import org.opencv.imgcodecs.Imgcodecs;

/**
 * Every operation's output against the picture the pipeline made before the OpenCV build changed
 * (issue 35: the port to a SIMD build changes speed, not pixels). Each case runs one job on a small
 * fixture (made with libvips, see golden/README.md), decodes its output and compares it with
 * {@code golden/ops/<case>.png}: same size and channels, and PSNR ≥ 40 dB (OpenCV's
 * {@link Core#PSNR}, 361 dB where identical). Lossy outputs are compared as decoded pixels.
 *
 * <p>The references were written by this test on org.openpnp opencv 4.9.0-0 with
 * {@code -Dfairpix.golden.write=<worker>/src/test/resources/golden/ops}; a deliberate change of
 * the pipeline's pixels (another operation's output under a case's name) fails it.
 */
class OperationGoldenTest {
    /** Below this the output is not "the same picture": 40 dB is a mean error of about 1/100 of full scale. */
    static final double MIN_PSNR_DB = 40.0;
    static final String WRITE_PROPERTY = "fairpix.golden.write";

    static final String PNG = "{\"op\":\"encode\",\"format\":\"png\",\"compression\":6}";

    @BeforeAll
    static void load() {
        OpenCv.ensureLoaded();
    }

    static Stream<Arguments> cases() {
        String jpeg = "elephants-400.jpg"; // 400x300, 4:2:0
        return Stream.of(
                // Resize, every fit; the small ones decode reduced (IMREAD_REDUCED_COLOR_2/4).
                Arguments.of("resize-inside", jpeg, "{\"op\":\"resize\",\"width\":160,\"height\":160,\"fit\":\"inside\"}," + PNG),
                Arguments.of("resize-contain", jpeg, "{\"op\":\"resize\",\"width\":128,\"height\":128,\"fit\":\"contain\"}," + PNG),
                Arguments.of("resize-cover", jpeg, "{\"op\":\"resize\",\"width\":128,\"height\":128,\"fit\":\"cover\"}," + PNG),
                Arguments.of("resize-cover-smart", jpeg,
                        "{\"op\":\"resize\",\"width\":128,\"height\":64,\"fit\":\"cover\",\"gravity\":\"smart\"}," + PNG),
                Arguments.of("resize-fill", jpeg, "{\"op\":\"resize\",\"width\":120,\"height\":120,\"fit\":\"fill\"}," + PNG),
                Arguments.of("resize-outside", jpeg, "{\"op\":\"resize\",\"width\":100,\"height\":100,\"fit\":\"outside\"}," + PNG),
                Arguments.of("resize-reduced-4", jpeg, "{\"op\":\"resize\",\"width\":96}," + PNG),
                Arguments.of("resize-enlarge", "elephants-alpha.png", "{\"op\":\"resize\",\"width\":200}," + PNG),
                // Geometry and filters; crop and blur turn shrink-on-load off (full-size decode).
                Arguments.of("crop", jpeg, "{\"op\":\"crop\",\"left\":50,\"top\":40,\"width\":160,\"height\":120}," + PNG),
                Arguments.of("rotate-90", jpeg, "{\"op\":\"resize\",\"width\":128},{\"op\":\"rotate\",\"angle\":90}," + PNG),
                Arguments.of("rotate-180", jpeg, "{\"op\":\"resize\",\"width\":128},{\"op\":\"rotate\",\"angle\":180}," + PNG),
                Arguments.of("flip-flop", jpeg, "{\"op\":\"resize\",\"width\":128},{\"op\":\"flip\"},{\"op\":\"flop\"}," + PNG),
                Arguments.of("blur", jpeg, "{\"op\":\"blur\",\"sigma\":2},{\"op\":\"resize\",\"width\":128}," + PNG),
                Arguments.of("sharpen", jpeg, "{\"op\":\"resize\",\"width\":128},{\"op\":\"sharpen\",\"sigma\":1,\"amount\":1.5}," + PNG),
                Arguments.of("grayscale", jpeg, "{\"op\":\"resize\",\"width\":128},{\"op\":\"grayscale\"}," + PNG),
                Arguments.of("modulate", jpeg,
                        "{\"op\":\"resize\",\"width\":128},{\"op\":\"modulate\",\"brightness\":1.2,\"saturation\":0.5,\"hue\":30}," + PNG),
                Arguments.of("watermark", jpeg, "{\"op\":\"resize\",\"width\":160},"
                        + "{\"op\":\"watermark\",\"key\":\"tenants/t1/logo.png\",\"gravity\":\"southeast\",\"opacity\":0.7,\"scale\":0.25,\"margin\":4}," + PNG),
                // Encoders (compared as decoded pixels), and the other input formats.
                Arguments.of("encode-jpeg-q80", jpeg, "{\"op\":\"resize\",\"width\":160},{\"op\":\"encode\",\"format\":\"jpeg\",\"quality\":80}"),
                Arguments.of("encode-jpeg-q90-progressive", jpeg,
                        "{\"op\":\"resize\",\"width\":160},{\"op\":\"encode\",\"format\":\"jpeg\",\"quality\":90,\"progressive\":true}"),
                Arguments.of("encode-webp-q80", jpeg, "{\"op\":\"resize\",\"width\":160},{\"op\":\"encode\",\"format\":\"webp\",\"quality\":80}"),
                Arguments.of("encode-webp-lossless", jpeg, "{\"op\":\"resize\",\"width\":160},{\"op\":\"encode\",\"format\":\"webp\",\"lossless\":true}"),
                Arguments.of("png-in-jpeg-out", "elephants-rgb.png", "{\"op\":\"resize\",\"width\":128},{\"op\":\"encode\",\"format\":\"jpeg\",\"quality\":80}"),
                Arguments.of("webp-in-png-out", "elephants-rgb.webp", "{\"op\":\"resize\",\"width\":128}," + PNG),
                Arguments.of("cmyk-jpeg-in", "elephants-cmyk.jpg", "{\"op\":\"resize\",\"width\":128}," + PNG),
                Arguments.of("alpha-png-out", "elephants-alpha.png", "{\"op\":\"resize\",\"width\":100}," + PNG),
                Arguments.of("alpha-on-background-jpeg", "elephants-alpha.png",
                        "{\"op\":\"background\",\"colour\":\"#3366cc\"},{\"op\":\"encode\",\"format\":\"jpeg\",\"quality\":90}"),
                Arguments.of("alpha-webp-out", "elephants-alpha.png", "{\"op\":\"encode\",\"format\":\"webp\",\"quality\":80}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void operationOutputIsTheReferencePicture(String name, String source, String operations) throws Exception {
        JobSpec spec = JobSpec.parse("{\"variants\":{\"v\":[" + operations + "]}}", "t1");
        byte[] logo = resource("golden/logo.png");
        ImagePipeline.Output out = new ImagePipeline(100_000_000L).process(resource("golden/" + source), spec, key -> {
            assertThat(key).isEqualTo("tenants/t1/logo.png");
            return logo;
        }).get("v");
        Mat got = Imgcodecs.imdecode(new MatOfByte(out.data()), Imgcodecs.IMREAD_UNCHANGED);
        assertThat(got.empty()).as("decoded output of " + name).isFalse();

        byte[] reference;
        String write = System.getProperty(WRITE_PROPERTY);
        if (write != null) { // (re)making the references: the test then compares the file it wrote
            MatOfByte png = new MatOfByte();
            assertThat(Imgcodecs.imencode(".png", got, png)).isTrue();
            reference = png.toArray();
            Files.write(Files.createDirectories(Path.of(write)).resolve(name + ".png"), reference);
        } else {
            reference = resource("golden/ops/" + name + ".png");
        }
        Mat want = Imgcodecs.imdecode(new MatOfByte(reference), Imgcodecs.IMREAD_UNCHANGED);
        assertThat(got.cols() + "x" + got.rows() + "x" + got.channels())
                .isEqualTo(want.cols() + "x" + want.rows() + "x" + want.channels());
        double psnr = Core.PSNR(got, want);
        System.out.printf("golden op %s: %dx%d, PSNR %.2f dB vs reference%n", name, got.cols(), got.rows(), psnr);
        assertThat(psnr).as(name + " PSNR (dB) against golden/ops/" + name + ".png").isGreaterThanOrEqualTo(MIN_PSNR_DB);
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = OperationGoldenTest.class.getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }

}
