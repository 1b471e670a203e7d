package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.image.ImageFormat;
import com.fairpix.core.image.ImageHeader;
import com.fairpix.core.job.Operation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.core.Rect;
import org.opencv.core.Scalar;
import org.opencv.imgcodecs.Imgcodecs;

/** The encode step: pinned parameters, alpha flattened on white for JPEG, real files out. */
class EncodeTest {
    private final java.util.List<Mat> mats = new java.util.ArrayList<>();

    @BeforeAll
    static void loadOpenCv() {
        OpenCv.ensureLoaded();
    }

    @AfterEach
    void release() {
        mats.forEach(Mat::release);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jpeg", "png", "webp"})
    void encodedImageDecodesAtTheSameSizeInTheRequestedFormat(String format) throws Exception {
        Mat src = track(TestImages.gradient(321, 123));

        byte[] out = Encode.apply(src, new Operation.Encode(format, 80));

        ImageHeader header = ImageHeader.read(out);
        assertThat(header.format()).isEqualTo(ImageFormat.valueOf(format.toUpperCase()));
        assertThat(header.width()).isEqualTo(321);
        assertThat(header.height()).isEqualTo(123);
        assertThat(header.complete()).isTrue();
        Mat back = track(TestImages.decode(out, Imgcodecs.IMREAD_COLOR));
        assertThat(back.cols()).isEqualTo(321);
        assertThat(back.rows()).isEqualTo(123);
        double[] diff = TestImages.meanAbsDiff(back, src);
        assertThat(diff[0] + diff[1] + diff[2]).as("looks like the source").isLessThan(3 * 6.0);
    }

    @Test
    void pngIsLossless() {
        Mat src = track(TestImages.gradient(200, 100));

        Mat back = track(TestImages.decode(Encode.apply(src, new Operation.Encode("png", 80)), Imgcodecs.IMREAD_UNCHANGED));

        assertThat(TestImages.meanAbsDiff(back, src)).containsOnly(0.0);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jpeg", "webp"})
    void qualityIsHonoured(String format) {
        Mat src = track(TestImages.gradient(400, 300));

        int low = Encode.apply(src, new Operation.Encode(format, 20)).length;
        int high = Encode.apply(src, new Operation.Encode(format, 95)).length;

        assertThat(low).isLessThan(high);
    }

    @Test
    void webpIsLossyAtTheGivenQualityNotOpenCvsLosslessDefault() {
        // A real photo: a synthetic gradient compresses better losslessly than lossily.
        Mat src = track(TestImages.decode(com.fairpix.core.Corpus.bytes("sharp-fixtures/Landscape_9.jpg"), Imgcodecs.IMREAD_COLOR));

        int q80 = Encode.apply(src, new Operation.Encode("webp", 80)).length;
        int lossless = TestImages.encode(src, ".webp", Imgcodecs.IMWRITE_WEBP_QUALITY, 101).length;

        assertThat(q80).isLessThan(lossless);
    }

    @Test
    void transparentPixelsBecomeWhiteInJpegNotTheHiddenColour() {
        // Fully transparent everywhere; the colour under the alpha is green (71,112,76) as in full-transparent.png.
        Mat bgra = track(new Mat(64, 64, CvType.CV_8UC4, new Scalar(76, 112, 71, 0)));

        Mat back = track(TestImages.decode(Encode.apply(bgra, new Operation.Encode("jpeg", 80)), Imgcodecs.IMREAD_UNCHANGED));

        assertThat(back.channels()).isEqualTo(3);
        double[] mean = TestImages.mean(back);
        assertThat(mean[0]).isGreaterThan(250);
        assertThat(mean[1]).isGreaterThan(250);
        assertThat(mean[2]).isGreaterThan(250);
    }

    @Test
    void halfTransparentPixelsAreBlendedWithWhite() {
        // Pure blue at alpha 128 over white: B stays 255, G and R go to about 127.
        Mat bgra = track(new Mat(32, 32, CvType.CV_8UC4, new Scalar(255, 0, 0, 128)));
        Mat flat = track(Encode.flattenOnWhite(bgra));

        assertThat(flat.type()).isEqualTo(CvType.CV_8UC3);
        double[] px = flat.get(10, 10);
        assertThat(px[0]).isEqualTo(255);
        assertThat(px[1]).isCloseTo(127, org.assertj.core.data.Offset.offset(1.0));
        assertThat(px[2]).isCloseTo(127, org.assertj.core.data.Offset.offset(1.0));
    }

    @Test
    void opaquePixelsAreUnchangedByFlattening() {
        Mat bgra = track(new Mat(16, 16, CvType.CV_8UC4, new Scalar(10, 20, 30, 255)));
        bgra.submat(new Rect(0, 0, 8, 16)).setTo(new Scalar(200, 100, 50, 255));

        Mat flat = track(Encode.flattenOnWhite(bgra));

        assertThat(flat.get(3, 3)).containsExactly(200, 100, 50);
        assertThat(flat.get(3, 12)).containsExactly(10, 20, 30);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"png", "webp"})
    void formatsWithAlphaKeepIt(String format) {
        Mat bgra = track(new Mat(32, 32, CvType.CV_8UC4, new Scalar(76, 112, 71, 0)));
        bgra.submat(new Rect(0, 0, 16, 32)).setTo(new Scalar(0, 0, 255, 255));

        Mat back = track(TestImages.decode(Encode.apply(bgra, new Operation.Encode(format, 90)), Imgcodecs.IMREAD_UNCHANGED));

        assertThat(back.channels()).isEqualTo(4);
        assertThat(back.get(16, 4)[3]).as("opaque half").isGreaterThan(250);
        assertThat(back.get(16, 28)[3]).as("transparent half").isLessThan(5);
    }

    @Test
    void encodingLeavesTheInputAlone() {
        Mat bgra = track(new Mat(8, 8, CvType.CV_8UC4, new Scalar(1, 2, 3, 0)));

        Encode.apply(bgra, new Operation.Encode("jpeg", 80));

        assertThat(bgra.channels()).isEqualTo(4);
        assertThat(bgra.get(0, 0)).containsExactly(1, 2, 3, 0);
    }

    @Test
    void jpegOutputCarriesNoExif() {
        byte[] out = Encode.apply(track(TestImages.gradient(64, 64)), new Operation.Encode("jpeg", 80));

        // No APP1 segment with "Exif": the output has no orientation to re-apply, and no metadata.
        String text = new String(out, 0, Math.min(out.length, 256), java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThat(text).doesNotContain("Exif");
    }

    private Mat track(Mat m) {
        mats.add(m);
        return m;
    }
}
