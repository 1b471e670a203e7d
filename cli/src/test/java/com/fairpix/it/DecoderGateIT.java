package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.image.HostileImages;
import com.fairpix.core.image.HostileImages.Heif;
import com.fairpix.core.json.Json;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 33: the gate prices what the decoder will do. Crafted files whose headers hide their decode
 * (built in code, HostileImages) get a precise 422 at submit on the real stack.
 */
class DecoderGateIT {
    @RegisterExtension static final Farm.Ingest farm = new Farm.Ingest();
    static String key;
    private static final byte[] SEQ_64 = HostileImages.av1SequenceHeader(64, 64);

    @BeforeAll
    static void start() throws Exception {
        key = farm.client().createTenant(Farm.tenantId("it-gate"), Map.of("maxPixels", 50_000_000));
    }

    @Test
    void aGifWhoseHugeFrameStartsAfterTheFirst512KiBIsTooManyPixels() throws Exception {
        // 670 kB: a 1x1 screen, a 602,000-byte comment, then a 10000x10000 frame (was priced 1x1).
        byte[] gif = HostileImages.gifWithLateFrame(1, 1, 602_000, 10_000, 10_000);
        JsonNode body = BadInputIT.assertProblem(farm.client().submitRaw(key, gif, "image/gif", Farm.SPEC), 422, "too-many-pixels");
        assertThat(body.get("detail").asText()).contains("10000x10000");
    }

    @Test
    void aMultiScanBaselineJpegIsAcceptedAndOneWithTooManyScansIsTooComplex() throws Exception {
        byte[] threeScans = HostileImages.baselineJpeg(640, 480, new int[] {0}, new int[] {1}, new int[] {2});
        HttpResponse<String> accepted = farm.client().submitRaw(key, threeScans, "image/jpeg", Farm.SPEC);
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        byte[] many = HostileImages.baselineJpegWithScans(64, 64, com.fairpix.core.image.ImageHeader.MAX_JPEG_SCANS + 1);
        JsonNode body = BadInputIT.assertProblem(farm.client().submitRaw(key, many, "image/jpeg", Farm.SPEC), 422, "image-too-complex");
        assertThat(body.get("detail").asText()).contains("scans");
    }

    @Test
    void aHeifGridWhoseCanvasIsLargerThanItsIspeIsRefused() throws Exception {
        Heif f = new Heif("avif").grid(1, 1024, 1024, 1, 1, 1, 1024, 2).item(2, "av01", 1024, 1024, SEQ_64, HostileImages.av1C(SEQ_64));
        JsonNode body = BadInputIT.assertProblem(farm.client().submitRaw(key, f.build(), "image/avif", Farm.SPEC), 422, "undecodable-header");
        assertThat(body.get("detail").asText()).contains("1024x1024 canvas", "ispe says 1x1024");
    }

    @Test
    void aHeifIdenNamingItselfIsRefused() throws Exception {
        byte[] cycle = new Heif("heic").item(1, "iden", 64, 64, new byte[0]).ref("dimg", 1, 1).build();
        JsonNode body = BadInputIT.assertProblem(farm.client().submitRaw(key, cycle, "image/heic", Farm.SPEC), 422, "undecodable-header");
        assertThat(body.get("detail").asText()).contains("cycle");
    }

    @Test
    void anAv1ItemWhoseSequenceHeaderIsLargerThanItsIspeIsRefused() throws Exception {
        byte[] big = HostileImages.av1SequenceHeader(8192, 8192);
        byte[] avif = new Heif("avif").item(1, "av01", 64, 64, big, HostileImages.av1C(big)).build();
        JsonNode body = BadInputIT.assertProblem(farm.client().submitRaw(key, avif, "image/avif", Farm.SPEC), 422, "undecodable-header");
        assertThat(body.get("detail").asText()).contains("8192x8192", "larger than its ispe");
    }

    @Test
    void aGridOfMoreTilesThanTheLimitIsTooComplex() throws Exception {
        int n = 1025;
        long[] tiles = new long[n];
        java.util.Arrays.fill(tiles, 2);
        Heif f = new Heif("avif").grid(1, 64 * n, 64, 1, n, 64 * n, 64, tiles).item(2, "av01", 64, 64, SEQ_64, HostileImages.av1C(SEQ_64));
        JsonNode body = BadInputIT.assertProblem(farm.client().submitRaw(key, f.build(), "image/avif", Farm.SPEC), 422, "image-too-complex");
        assertThat(body.get("detail").asText()).contains("1025");
    }
}
