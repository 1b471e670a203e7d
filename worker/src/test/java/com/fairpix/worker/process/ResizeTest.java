package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.job.Operation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.opencv.core.Core;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.core.Rect;
import org.opencv.core.Scalar;

/** The resize step's fits: contain (inside the box), cover (fill the box, centre crop), fill (stretch). */
class ResizeTest {
    private final java.util.List<Mat> mats = new java.util.ArrayList<>();

    @BeforeAll
    static void loadOpenCv() {
        OpenCv.ensureLoaded();
    }

    @AfterEach
    void release() {
        mats.forEach(Mat::release);
    }

    @ParameterizedTest(name = "{0}x{1} {2} {3}x{4} -> {5}x{6}")
    @CsvSource(nullValues = "-", value = {
        // contain: inside the box, aspect kept
        "2048, 1536, contain, 1024, 1024, 1024, 768",
        "2048, 1536, contain, 256, 256, 256, 192",
        "1536, 2048, contain, 256, 256, 192, 256",
        "2048, 1536, contain, 300, -, 300, 225",
        "2048, 1536, contain, -, 300, 400, 300",
        "1046, 802, contain, 256, 256, 256, 196",
        "100, 50, contain, 400, 400, 400, 200",
        // cover: exactly the box
        "2048, 1536, cover, 256, 256, 256, 256",
        "1536, 2048, cover, 256, 256, 256, 256",
        "2048, 1536, cover, 300, 100, 300, 100",
        "1000, 333, cover, 120, 120, 120, 120",
        "100, 50, cover, 400, 400, 400, 400",
        // fill: exactly the box, aspect ignored
        "2048, 1536, fill, 300, 100, 300, 100",
        "100, 50, fill, 30, 300, 30, 300",
    })
    void outputSizeFollowsTheFit(int w, int h, String fit, Integer bw, Integer bh, int ew, int eh) {
        Mat out = resize(blank(w, h), new Operation.Resize(bw, bh, Operation.Fit.valueOf(fit.toUpperCase()), false));

        assertThat(out.cols()).as("width").isEqualTo(ew);
        assertThat(out.rows()).as("height").isEqualTo(eh);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"contain, 100, 50", "cover, 100, 50", "fill, 100, 50"})
    void withoutEnlargementKeepsASmallSourceAtItsSize(String fit, int ew, int eh) {
        Mat out = resize(blank(100, 50), new Operation.Resize(400, 200, Operation.Fit.valueOf(fit.toUpperCase()), true));

        assertThat(out.cols()).isEqualTo(ew);
        assertThat(out.rows()).isEqualTo(eh);
    }

    @Test
    void withoutEnlargementStillShrinksALargeSource() {
        Mat out = resize(blank(2048, 1536), new Operation.Resize(1024, 1024, Operation.Fit.CONTAIN, true));

        assertThat(out.cols()).isEqualTo(1024);
        assertThat(out.rows()).isEqualTo(768);
    }

    @Test
    void coverWithoutEnlargementCropsToTheBoxWhereTheSourceAllows() {
        // 100x50 into 80x80: no upscaling, so the crop is 80x50.
        Mat out = resize(blank(100, 50), new Operation.Resize(80, 80, Operation.Fit.COVER, true));

        assertThat(out.cols()).isEqualTo(80);
        assertThat(out.rows()).isEqualTo(50);
    }

    @Test
    void coverCropsTheCentre() {
        // Three vertical bands, blue | green | red; a square cover keeps the middle one.
        Mat src = track(new Mat(100, 300, CvType.CV_8UC3, new Scalar(255, 0, 0)));
        src.submat(new Rect(100, 0, 100, 100)).setTo(new Scalar(0, 255, 0));
        src.submat(new Rect(200, 0, 100, 100)).setTo(new Scalar(0, 0, 255));

        Mat out = resize(src, new Operation.Resize(50, 50, Operation.Fit.COVER, false));

        double[] mean = Core.mean(out).val;
        assertThat(mean[1]).as("green").isGreaterThan(250);
        assertThat(mean[0]).as("blue").isLessThan(5);
        assertThat(mean[2]).as("red").isLessThan(5);
    }

    @Test
    void containKeepsTheWholePicture() {
        Mat src = track(new Mat(100, 300, CvType.CV_8UC3, new Scalar(255, 0, 0)));
        src.submat(new Rect(200, 0, 100, 100)).setTo(new Scalar(0, 0, 255));

        Mat out = resize(src, new Operation.Resize(30, 30, Operation.Fit.CONTAIN, false));

        assertThat(out.cols()).isEqualTo(30);
        assertThat(out.rows()).isEqualTo(10);
        assertThat(out.get(5, 2)[0]).as("left edge still blue").isGreaterThan(250);
        assertThat(out.get(5, 27)[2]).as("right edge still red").isGreaterThan(250);
    }

    @Test
    void downscalingAveragesInsteadOfAliasing() {
        // A 1-pixel checkerboard shrunk 8x must come out mid-grey (box filter), not black or white (sampling).
        Mat src = track(new Mat(512, 512, CvType.CV_8UC3));
        byte[] px = new byte[512 * 512 * 3];
        for (int y = 0; y < 512; y++) for (int x = 0; x < 512; x++) {
            byte v = (byte) (((x + y) & 1) == 0 ? 0 : 255);
            int i = (y * 512 + x) * 3;
            px[i] = v; px[i + 1] = v; px[i + 2] = v;
        }
        src.put(0, 0, px);

        Mat out = resize(src, new Operation.Resize(64, 64, Operation.Fit.CONTAIN, false));

        Core.MinMaxLocResult range = Core.minMaxLoc(channel0(out));
        assertThat(range.minVal).isGreaterThan(120);
        assertThat(range.maxVal).isLessThan(135);
    }

    @Test
    void alphaChannelSurvivesAResize() {
        Mat src = track(new Mat(200, 200, CvType.CV_8UC4, new Scalar(10, 20, 30, 0)));

        Mat out = resize(src, new Operation.Resize(50, 50, Operation.Fit.COVER, false));

        assertThat(out.type()).isEqualTo(CvType.CV_8UC4);
        assertThat(Core.mean(out).val[3]).isZero();
    }

    @Test
    void inputIsLeftUnchanged() {
        Mat src = track(TestImages.gradient(400, 300));
        Mat before = track(src.clone());

        resize(src, new Operation.Resize(100, 100, Operation.Fit.COVER, false));

        assertThat(src.size()).isEqualTo(before.size());
        assertThat(TestImages.meanAbsDiff(src, before)).containsOnly(0.0);
    }

    @Test
    void veryThinSourceNeverBecomesZeroPixelsWide() {
        Mat out = resize(blank(4000, 3), new Operation.Resize(100, null, Operation.Fit.CONTAIN, false));

        assertThat(out.cols()).isEqualTo(100);
        assertThat(out.rows()).isEqualTo(1);
    }

    private Mat resize(Mat src, Operation.Resize op) {
        return track(Resize.apply(src, op));
    }

    private Mat blank(int w, int h) {
        return track(new Mat(h, w, CvType.CV_8UC3, new Scalar(40, 80, 120)));
    }

    private Mat channel0(Mat m) {
        Mat c = new Mat();
        Core.extractChannel(m, c, 0);
        return track(c);
    }

    private Mat track(Mat m) {
        mats.add(m);
        return m;
    }
}
