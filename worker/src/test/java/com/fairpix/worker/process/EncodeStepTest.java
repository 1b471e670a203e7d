package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.Corpus;
import com.fairpix.core.job.Operation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.opencv.core.Core;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.core.MatOfByte;
import org.opencv.core.Scalar;
import org.opencv.imgcodecs.Imgcodecs;

class EncodeStepTest {
    final Mat photo = StepImages.noise(64, 48, 5);

    static boolean hasMarker(byte[] jpeg, int marker) {
        for (int i = 0; i + 1 < jpeg.length; i++) if ((jpeg[i] & 0xFF) == 0xFF && (jpeg[i + 1] & 0xFF) == marker) return true;
        return false;
    }

    static String fourcc(byte[] webp) {
        return new String(webp, 12, 4, StandardCharsets.US_ASCII);
    }

    @Test
    void jpegIsBaselineByDefaultAndProgressiveOnRequest() {
        byte[] baseline = Encode.apply(photo, new Operation.Encode("jpeg", 80));
        byte[] progressive = Encode.apply(photo, new Operation.Encode("jpeg", 80, true, 6, false));
        assertThat(hasMarker(baseline, 0xC0)).isTrue();
        assertThat(hasMarker(progressive, 0xC2)).isTrue();
    }

    @Test
    void qualityIsHonoured() {
        byte[] q30 = Encode.apply(photo, new Operation.Encode("jpeg", 30));
        byte[] q95 = Encode.apply(photo, new Operation.Encode("jpeg", 95));
        assertThat(q30.length).isLessThan(q95.length);
    }

    @Test
    void webpIsLossyUnlessLosslessIsAsked() {
        assertThat(fourcc(Encode.apply(photo, new Operation.Encode("webp", 80)))).isEqualTo("VP8 ");
        byte[] lossless = Encode.apply(photo, new Operation.Encode("webp", 80, false, 6, true));
        assertThat(fourcc(lossless)).isEqualTo("VP8L");
        Mat back = Imgcodecs.imdecode(new MatOfByte(lossless), Imgcodecs.IMREAD_COLOR);
        assertThat(StepImages.same(back, photo)).isTrue();
    }

    @Test
    void pngCompressionLevelChangesTheSizeNotThePixels() {
        Mat smooth = StepImages.solid(200, 200, 10, 20, 30);
        byte[] c0 = Encode.apply(smooth, new Operation.Encode("png", 80, false, 0, false));
        byte[] c9 = Encode.apply(smooth, new Operation.Encode("png", 80, false, 9, false));
        assertThat(c9.length).isLessThan(c0.length);
        assertThat(StepImages.same(Imgcodecs.imdecode(new MatOfByte(c9), Imgcodecs.IMREAD_COLOR), smooth)).isTrue();
    }

    @Test
    void alphaIsFlattenedOverTheBackgroundForJpegButKeptForPngAndWebp() {
        Mat transparent = new Mat(8, 8, CvType.CV_8UC4, new Scalar(0, 255, 0, 0)); // hidden green
        byte[] jpeg = Encode.apply(transparent, new Operation.Encode("jpeg", 90), new int[] {255, 0, 0});
        Scalar mean = Core.mean(Imgcodecs.imdecode(new MatOfByte(jpeg), Imgcodecs.IMREAD_COLOR));
        assertThat(mean.val[0]).isGreaterThan(250); // blue background, no green
        assertThat(mean.val[1]).isLessThan(5);
        byte[] png = Encode.apply(transparent, new Operation.Encode("png", 80));
        assertThat(Imgcodecs.imdecode(new MatOfByte(png), Imgcodecs.IMREAD_UNCHANGED).channels()).isEqualTo(4);
    }

    @Test
    void metadataIsStrippedFromAPhotoWithExifIptcXmpAndIcc() throws Exception {
        Path p = Corpus.path("sharp-fixtures/Landscape_9.jpg");
        byte[] src = Files.readAllBytes(p);
        assertThat(hasMarker(src, 0xE1) || hasMarker(src, 0xED) || hasMarker(src, 0xE2)).isTrue();
        byte[] out = Encode.apply(GoldenTest.decode(src), new Operation.Encode("jpeg", 80));
        // APP1 (EXIF/XMP), APP2 (ICC), APP13 (IPTC) must be gone: only JFIF APP0 remains.
        for (int app : new int[] {0xE1, 0xE2, 0xED}) {
            assertThat(segmentBeforeScan(out, app)).as("APP" + (app - 0xE0) + " in " + HexFormat.of().formatHex(out, 0, 32)).isFalse();
        }
    }

    /** Whether a marker segment occurs in the header part (before SOS), where metadata lives. */
    static boolean segmentBeforeScan(byte[] d, int marker) {
        int i = 2;
        while (i + 4 <= d.length) {
            int m = d[i + 1] & 0xFF;
            if (m == 0xDA) return false;
            if (m == marker) return true;
            i += 2 + (((d[i + 2] & 0xFF) << 8) | (d[i + 3] & 0xFF));
        }
        return false;
    }
}
