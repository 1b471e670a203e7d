package com.fairpix.core.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.image.ImageFormat;
import com.fairpix.core.image.ImageHeader;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobCostTest {
    static final ImageHeader PHOTO_3MP = new ImageHeader(ImageFormat.JPEG, 2048, 1536, 1, false, true);

    static double tokens(ImageHeader header, long bytes, String spec) {
        JobSpec s = JobSpec.parse(spec);
        Map<String, OutputSize.Estimate> outputs = OutputSize.of(s, header.displayWidth(), header.displayHeight());
        return JobCost.tokens(header, bytes, s, outputs);
    }

    static String variant(String resize, String encode) {
        return "{\"variants\":{\"v\":[" + resize + "," + encode + "]}}";
    }

    static final String THUMB = "{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"cover\"}";
    static final String JPEG = "{\"op\":\"encode\",\"format\":\"jpeg\",\"quality\":80}";

    @Test
    void aJpegThumbnailIsPricedAtTheScaleTheDecoderUses() {
        // 256 px cover of 2048x1536: the short side needs 256 of 1536, so libjpeg decodes at 1/4.
        assertThat(JobCost.jpegReduction(PHOTO_3MP, JobSpec.parse(variant(THUMB, JPEG)))).isEqualTo(4);
        assertThat(JobCost.decodedPixels(PHOTO_3MP, JobSpec.parse(variant(THUMB, JPEG)))).isEqualTo(512L * 384);
        // The same photo as a PNG is decoded whole.
        ImageHeader png = new ImageHeader(ImageFormat.PNG, 2048, 1536, 1, false, true);
        assertThat(JobCost.decodedPixels(png, JobSpec.parse(variant(THUMB, JPEG)))).isEqualTo(2048L * 1536);
        assertThat(tokens(png, 5_000_000, variant(THUMB, JPEG))).isGreaterThan(3 * tokens(PHOTO_3MP, 1_000_000, variant(THUMB, JPEG)));
    }

    @Test
    void theEncodersEffortIsPriced() {
        String large = "{\"op\":\"resize\",\"width\":1024,\"height\":1024,\"fit\":\"contain\"}";
        double jpeg = tokens(PHOTO_3MP, 1_000_000, variant(large, JPEG));
        double avif9 = tokens(PHOTO_3MP, 1_000_000, variant(large, "{\"op\":\"encode\",\"format\":\"avif\",\"quality\":50,\"speed\":9}"));
        double avif6 = tokens(PHOTO_3MP, 1_000_000, variant(large, "{\"op\":\"encode\",\"format\":\"avif\",\"quality\":50,\"speed\":6}"));
        double avif4 = tokens(PHOTO_3MP, 1_000_000, variant(large, "{\"op\":\"encode\",\"format\":\"avif\",\"quality\":50,\"speed\":4}"));
        assertThat(avif9).isGreaterThan(jpeg);
        assertThat(avif6).isGreaterThan(avif9);
        assertThat(avif4).isGreaterThan(2 * avif6);
    }

    @Test
    void aHeicThumbnailCostsMoreThanAJpegOneOfTheSamePhoto() {
        // libde265 decodes every pixel; libjpeg only a quarter of each side for this thumbnail
        // (measured 42 ms against 10-20 ms on the calibration machine).
        ImageHeader heic = new ImageHeader(ImageFormat.HEIC, 2048, 1536, 1, false, true);
        assertThat(tokens(heic, 1_000_000, variant(THUMB, JPEG))).isGreaterThan(2 * tokens(PHOTO_3MP, 1_000_000, variant(THUMB, JPEG)));
    }

    @Test
    void everyVariantAddsItsEncode() {
        String two = "{\"variants\":{\"a\":[" + THUMB + "," + JPEG + "],\"b\":[" + THUMB + "," + JPEG + "]}}";
        double one = tokens(PHOTO_3MP, 1_000_000, variant(THUMB, JPEG));
        double both = tokens(PHOTO_3MP, 1_000_000, two);
        assertThat(both).isGreaterThan(one).isLessThan(2 * one); // one decode serves both
    }
}
