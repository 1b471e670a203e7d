package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.error.FairpixException;
import com.fairpix.core.error.Permanent;
import com.fairpix.core.image.ImageHeader;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.Operation;
import com.fairpix.core.job.Operation.Fit;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.opencv.core.Core;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.core.Scalar;

class DecodeStepTest {
    final Decode decode = new Decode(100_000_000L);

    static JobSpec spec(Operation... ops) {
        return new JobSpec(Map.of("v", List.of(ops)), null);
    }

    static final JobSpec FULL = spec(new Operation.Encode("png", 80));

    /** Inserts a chunk right after IHDR (offset 33), with its CRC. */
    static byte[] withChunk(byte[] png, String type, byte[] data) {
        ByteBuffer chunk = ByteBuffer.allocate(12 + data.length);
        chunk.putInt(data.length).put(type.getBytes()).put(data);
        CRC32 crc = new CRC32();
        crc.update(type.getBytes());
        crc.update(data);
        chunk.putInt((int) crc.getValue());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(png, 0, 33);
        out.writeBytes(chunk.array());
        out.write(png, 33, png.length - 33);
        return out.toByteArray();
    }

    /** A big-endian TIFF header with one IFD entry: Orientation = o. */
    static byte[] exif(int o) {
        return ByteBuffer.allocate(26).put(new byte[] {'M', 'M', 0, 42}).putInt(8).putShort((short) 1)
                .putShort((short) 0x0112).putShort((short) 3).putInt(1).putShort((short) o).putShort((short) 0).putInt(0).array();
    }

    @Test
    void pngWithAlphaAndExifOrientationIsTurnedUprightOnTheUnchangedPath() {
        Mat upright = new Mat(2, 3, CvType.CV_8UC4, new Scalar(10, 20, 30, 128));
        upright.put(0, 0, 200, 0, 0, 255); // top-left marker
        Mat stored = OrientTest.stored(upright, 6);
        byte[] png = withChunk(StepImages.encode(stored, ".png"), "eXIf", exif(6));
        try (Decoded d = decode.apply(png, FULL)) {
            assertThat(d.image().channels()).isEqualTo(4);
            assertThat(d.image().cols() + "x" + d.image().rows()).isEqualTo("3x2");
            assertThat(StepImages.same(d.image(), upright)).isTrue();
        }
    }

    @Test
    void greyPngWithTrnsGetsItsTransparencyBack() {
        Mat grey = new Mat(4, 4, CvType.CV_8UC1, new Scalar(7));
        grey.put(0, 0, 200);
        byte[] png = withChunk(StepImages.encode(grey, ".png"), "tRNS", new byte[] {0, 7});
        try (Decoded d = decode.apply(png, FULL)) {
            assertThat(d.image().channels()).isEqualTo(4);
            assertThat(StepImages.at(d.image(), 1, 1)[3]).isEqualTo(0);
            assertThat(StepImages.at(d.image(), 0, 0)).containsExactly(200, 200, 200, 255);
        }
    }

    @Test
    void sixteenBitIsScaledBy257() {
        Mat m = new Mat(2, 2, CvType.CV_16UC3, new Scalar(257 * 100, 257 * 200, 65535));
        try (Decoded d = decode.apply(StepImages.encode(m, ".png"), FULL)) {
            assertThat(StepImages.at(d.image(), 0, 0)).containsExactly(100, 200, 255);
        }
    }

    @Test
    void truncatedJpegIsRejectedWithReasonTruncated() {
        byte[] jpeg = StepImages.encode(StepImages.noise(64, 64, 1), ".jpg");
        byte[] cut = Arrays.copyOf(jpeg, jpeg.length / 2);
        assertThatThrownBy(() -> decode.apply(cut, FULL)).isInstanceOf(Permanent.class)
                .extracting(e -> ((FairpixException) e).reason()).isEqualTo("truncated");
    }

    @Test
    void dataAfterTheEndMarkerIsNotTruncation() {
        byte[] jpeg = StepImages.encode(StepImages.noise(64, 64, 1), ".jpg");
        byte[] trailer = Arrays.copyOf(jpeg, jpeg.length + 5000); // e.g. a phone's appended trailer
        try (Decoded d = decode.apply(trailer, FULL)) {
            assertThat(d.image().cols()).isEqualTo(64);
        }
    }

    @Test
    void unknownFormatsAndOversizedImagesAreRejectedBeforeDecoding() {
        assertThatThrownBy(() -> decode.apply("JUNK89a....".getBytes(), FULL))
                .extracting(e -> ((FairpixException) e).reason()).isEqualTo("unsupported-format");
        assertThatThrownBy(() -> decode.apply("GIF89a....".getBytes(), FULL))
                .as("a GIF signature with no logical screen").extracting(e -> ((FairpixException) e).reason()).isEqualTo("undecodable-header");
        byte[] big = StepImages.encode(StepImages.noise(100, 100, 1), ".png");
        assertThatThrownBy(() -> new Decode(9_999).apply(big, FULL))
                .extracting(e -> ((FairpixException) e).reason()).isEqualTo("too-many-pixels");
    }

    @Test
    void shrinkOnLoadPicksTheLargestFactorThatStillCoversTheOutput() throws Exception {
        byte[] jpeg = StepImages.encode(StepImages.noise(2000, 1000, 1), ".jpg");
        ImageHeader h = ImageHeader.read(jpeg);
        assertThat(Decode.reductionFor(h, spec(new Operation.Resize(256, 256, Fit.CONTAIN, false), new Operation.Encode("jpeg", 80)))).isEqualTo(4);
        assertThat(Decode.reductionFor(h, spec(new Operation.Resize(256, 256, Fit.COVER, false), new Operation.Encode("jpeg", 80)))).isEqualTo(2);
        assertThat(Decode.reductionFor(h, spec(new Operation.Resize(100, null, Fit.CONTAIN, false), new Operation.Encode("jpeg", 80)))).isEqualTo(8);
        assertThat(Decode.reductionFor(h, FULL)).isEqualTo(1);
        // A crop before the resize is in source pixels: no shrink-on-load.
        assertThat(Decode.reductionFor(h, spec(new Operation.Crop(0, 0, 500, 500), new Operation.Resize(50, 50, Fit.CONTAIN, false), new Operation.Encode("jpeg", 80)))).isEqualTo(1);
        DecodePlan plan = decode.plan(jpeg, spec(new Operation.Resize(100, null, Fit.CONTAIN, false), new Operation.Encode("jpeg", 80)));
        try (Decoded d = decode.apply(jpeg, plan)) {
            assertThat(d.image().cols() + "x" + d.image().rows()).isEqualTo("250x125");
            assertThat(d.reduction()).isEqualTo(8);
        }
    }

    @Test
    void greyJpegBecomesThreeChannels() {
        Mat grey = new Mat(8, 8, CvType.CV_8UC1, new Scalar(99));
        try (Decoded d = decode.apply(StepImages.encode(grey, ".jpg"), FULL)) {
            assertThat(d.image().channels()).isEqualTo(3);
            assertThat(Core.mean(d.image()).val[1]).isBetween(97.0, 101.0);
        }
    }
}
