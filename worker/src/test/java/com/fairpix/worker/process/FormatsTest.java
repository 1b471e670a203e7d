package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.error.Permanent;
import com.fairpix.core.image.ImageFormat;
import com.fairpix.core.image.ImageHeader;
import com.fairpix.core.image.TestTiff;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.opencv.core.Core;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.core.Rect;
import org.opencv.core.Size;
import org.opencv.imgcodecs.Imgcodecs;
import org.opencv.imgproc.Imgproc;

/**
 * The input formats beyond JPEG, PNG and WebP (TIFF, BMP, GIF, HEIC, AVIF) and AVIF output: right
 * colours, sizes, orientation and transparency, and the failures they must give.
 */
class FormatsTest {
    static final JobSpec FULL = new JobSpec(Map.of("full", List.of(new Operation.Encode("png", 80))), null);
    private final Decode decode = new Decode(100_000_000L);
    private final List<Mat> mats = new ArrayList<>();

    @BeforeAll
    static void load() {
        OpenCv.ensureLoaded();
        assertThat(LibHeif.available()).as("libheif (scripts install libheif1): " + LibHeif.support().problem()).isTrue();
    }

    @AfterEach
    void release() {
        mats.forEach(Mat::release);
    }

    private Mat track(Mat m) {
        mats.add(m);
        return m;
    }

    private Mat decoded(byte[] data) {
        return track(decode.apply(data, FULL).image());
    }

    @Test
    void cmykTiffComesOutRedNotAsRawInk() {
        Mat m = decoded(com.fairpix.core.Corpus.bytes("sharp-fixtures/fogra-0-100-100-0.tif"));

        assertThat(m.channels()).isEqualTo(3);
        double[] bgr = Core.mean(m).val;
        assertThat(bgr[2]).as("red").isGreaterThan(200);
        assertThat(bgr[1]).as("green").isLessThan(60);
        assertThat(bgr[0]).as("blue").isLessThan(60);
    }

    @Test
    void sixteenBitTiffIsScaledNotClipped() {
        int[] px = {65535, 32896, 0, 65535, 32896, 0, 65535, 32896, 0, 65535, 32896, 0};
        Mat m = decoded(TestTiff.rgb(2, 2, px, 16, 1, 1));

        assertThat(m.depth()).isEqualTo(CvType.CV_8U);
        double[] bgr = Core.mean(m).val;
        assertThat(new double[] {bgr[0], bgr[1], bgr[2]}).as("65535 -> 255, 32896 -> 128, 0 -> 0").containsExactly(0, 128, 255);
    }

    @Test
    void tiffOrientationIsAppliedAndTheFirstPageOfAMultiPageFileIsDecoded() {
        // 3 wide, 2 high: the top-left pixel red, the rest black; orientation 6 turns it clockwise.
        int[] px = new int[3 * 2 * 3];
        px[0] = 255;
        for (int pages : new int[] {1, 3}) {
            Mat m = decoded(TestTiff.rgb(3, 2, px, 8, 6, pages));
            assertThat(m.cols() + "x" + m.rows()).isEqualTo("2x3");
            assertThat(m.get(0, 1)).as("stored top-left ends top-right").containsExactly(0, 0, 255);
            assertThat(m.get(0, 0)).containsExactly(0, 0, 0);
        }
    }

    @Test
    void cutTiffIsTruncatedAndCielabTiffIsAClearRefusal() {
        byte[] tiff = TestTiff.rgb(40, 30, new int[40 * 30 * 3], 8, 1, 1);
        byte[] cut = java.util.Arrays.copyOf(tiff, 1000); // the directory at the end is gone too
        assertThatThrownBy(() -> decode.apply(cut, FULL)).isInstanceOfSatisfying(Permanent.class,
                e -> assertThat(e.reason()).isIn("truncated", "undecodable-header"));
        assertThatThrownBy(() -> decode.apply(com.fairpix.core.Corpus.bytes("sharp-fixtures/cielab-dagams.tiff"), FULL)).isInstanceOfSatisfying(Permanent.class,
                e -> assertThat(e.getMessage()).contains("CIELAB"));
    }

    @Test
    void bmpDecodesAsItsPixels() {
        Mat src = track(TestImages.gradient(33, 17));
        Mat m = decoded(TestImages.encode(src, ".bmp"));

        assertThat(TestImages.meanAbsDiff(m, src)).containsOnly(0.0);
    }

    @Test
    void stillGifKeepsItsTransparencyAndAJpegOfItIsFlattenedOnWhite() throws Exception {
        byte[] gif = com.fairpix.core.Corpus.bytes("sharp-fixtures/grey-plus-alpha.gif");
        Mat m = decoded(gif);

        assertThat(m.channels()).isEqualTo(4);
        assertThat(m.cols() + "x" + m.rows()).isEqualTo("2x1");
        double a0 = m.get(0, 0)[3], a1 = m.get(0, 1)[3];
        assertThat(Math.min(a0, a1)).as("one pixel is transparent").isEqualTo(0);
        assertThat(Math.max(a0, a1)).as("one pixel is opaque").isEqualTo(255);

        byte[] jpeg = new ImagePipeline(100_000_000L).process(gif, new JobSpec(Map.of("j", List.of(new Operation.Encode("jpeg", 95))), null)).get("j").data();
        Mat flat = track(TestImages.decode(jpeg, Imgcodecs.IMREAD_COLOR));
        int transparent = a0 == 0 ? 0 : 1;
        assertThat(flat.get(0, transparent)[0]).as("the transparent pixel is white").isGreaterThan(240);
    }

    @Test
    void animatedGifIsRefusedNamingItsFrames() {
        assertThatThrownBy(() -> decode.plan(com.fairpix.core.Corpus.bytes("sharp-fixtures/rotating-squares.gif"), FULL))
                .isInstanceOfSatisfying(Permanent.class, e -> {
                    assertThat(e.reason()).isEqualTo("animated");
                    assertThat(e.getMessage()).contains("30 frames");
                });
    }

    @Test
    void gifWhoseFrameIsOverThePixelLimitIsRefusedFromTheHeader() {
        byte[] gif = {'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0, 0, 0, 0,
            0x2C, 0, 0, 0, 0, 0x20, 0x4E, 0x20, 0x4E, 0, 2, 2, 0x4C, 0x01, 0, 0x3B};
        assertThatThrownBy(() -> decode.plan(gif, FULL)).isInstanceOfSatisfying(Permanent.class,
                e -> assertThat(e.reason()).isEqualTo("too-many-pixels"));
    }

    @Test
    void avifFromTheCorpusDecodesAtItsSize() {
        Mat m = decoded(com.fairpix.core.Corpus.bytes("sharp-fixtures/pitm.avif"));
        assertThat(m.cols() + "x" + m.rows()).isEqualTo("4096x800");
        assertThat(Core.mean(m).val[0] + Core.mean(m).val[1] + Core.mean(m).val[2]).as("not a black picture").isGreaterThan(30);
    }

    @Test
    void heicWithARotationDecodesUprightAndResizesByItsDisplayedSize() {
        Mat photo = track(TestImages.decode(com.fairpix.core.Corpus.bytes("cameratrap-photos/african_elephants.jpg"), Imgcodecs.IMREAD_REDUCED_COLOR_4));
        byte[] heic = LibHeif.encodeHeic(photo, 90, 6);

        ImageHeader h;
        try {
            h = ImageHeader.read(heic);
        } catch (ImageHeader.HeaderException e) {
            throw new AssertionError(e);
        }
        assertThat(h.format()).isEqualTo(ImageFormat.HEIC);
        assertThat(h.orientation()).as("irot 270° anti-clockwise = EXIF 6").isEqualTo(6);
        assertThat(h.width() + "x" + h.height()).as("ispe: the size before the turn").isEqualTo(photo.cols() + "x" + photo.rows());
        Mat m = decoded(heic);
        assertThat(m.cols() + "x" + m.rows()).isEqualTo(photo.rows() + "x" + photo.cols());
        Mat expected = track(new Mat());
        Core.rotate(photo, expected, Core.ROTATE_90_CLOCKWISE);
        for (double d : TestImages.meanAbsDiff(m, expected)) assertThat(d).as("mean abs diff to the rotated source").isLessThan(6);

        JobSpec thumb = new JobSpec(Map.of("t", List.of(new Operation.Resize(200, 200, Operation.Fit.INSIDE, false, Operation.Gravity.CENTRE),
                new Operation.Encode("jpeg", 80))), null);
        ImagePipeline.Output out = new ImagePipeline(100_000_000L).process(heic, thumb).get("t");
        assertThat(out.width() + "x" + out.height()).as("portrait once upright").isEqualTo(Math.round(200.0 * photo.rows() / photo.cols()) + "x200");
    }

    @Test
    void heicWhoseSidesAreNotWholeCodingBlocksDecodesAtItsSize() {
        // Coded 256x176 (HEVC rounds up to whole blocks): libheif's limit, set from the header's 250,
        // refused it ("Coded image size ... exceeds the maximum image size 251x251"; issue 35's bench).
        Mat photo = track(TestImages.decode(com.fairpix.core.Corpus.bytes("cameratrap-photos/african_elephants.jpg"), Imgcodecs.IMREAD_REDUCED_COLOR_8));
        Mat small = track(new Mat());
        Imgproc.resize(photo, small, new Size(250, 170), 0, 0, Imgproc.INTER_AREA);
        byte[] heic = LibHeif.encodeHeic(small, 80, 1);

        Mat m = decoded(heic);
        assertThat(m.cols() + "x" + m.rows()).isEqualTo("250x170");
        for (double d : TestImages.meanAbsDiff(m, small)) assertThat(d).as("mean abs diff to the source").isLessThan(6);
    }

    @Test
    void avifOutputDecodesBackWithinThirtyDecibelsAndCarriesNoMetadata() throws Exception {
        Mat photo = track(TestImages.decode(com.fairpix.core.Corpus.bytes("cameratrap-photos/african_elephants.jpg"), Imgcodecs.IMREAD_REDUCED_COLOR_4));
        Mat small = track(new Mat());
        Imgproc.resize(photo, small, new Size(512, Math.round(512.0 * photo.rows() / photo.cols())), 0, 0, Imgproc.INTER_AREA);

        byte[] avif = Encode.apply(small, new Operation.Encode("avif", 80, false, 6, false, 6));

        ImageHeader h = ImageHeader.read(avif);
        assertThat(h.format()).isEqualTo(ImageFormat.AVIF);
        assertThat(h.width() + "x" + h.height()).isEqualTo(small.cols() + "x" + small.rows());
        assertThat(new String(avif, java.nio.charset.StandardCharsets.ISO_8859_1)).as("no Exif item").doesNotContain("Exif");
        Mat back = decoded(avif);
        double psnr = Core.PSNR(back, small);
        System.out.printf("AVIF q80 speed 6, %dx%d: %d bytes, PSNR %.1f dB%n", small.cols(), small.rows(), avif.length, psnr);
        assertThat(psnr).isGreaterThan(30);
    }

    @Test
    void avifOutputKeepsAlpha() {
        Mat bgra = track(new Mat(20, 30, CvType.CV_8UC4, new org.opencv.core.Scalar(0, 0, 255, 255)));
        track(bgra.submat(new Rect(0, 0, 15, 20))).setTo(new org.opencv.core.Scalar(0, 0, 0, 0));

        Mat back = decoded(Encode.apply(bgra, new Operation.Encode("avif", 90, false, 6, false, 6)));

        assertThat(back.channels()).isEqualTo(4);
        assertThat(back.get(10, 5)[3]).as("transparent half").isLessThan(10);
        assertThat(back.get(10, 25)[3]).as("opaque half").isGreaterThan(245);
    }
}
