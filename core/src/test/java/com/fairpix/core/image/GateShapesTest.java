package com.fairpix.core.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.image.HostileImages.Heif;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the gate reads from headers that put sizes late or hide them in an item graph (issue 33). */
class GateShapesTest {
    private static final byte[] SEQ_64 = HostileImages.av1SequenceHeader(64, 64);

    @Test
    void aGifFrameAfterTheFirst512KiBIsFoundWhenTheWholeFileIsWalked(@TempDir Path dir) throws Exception {
        byte[] gif = HostileImages.gifWithLateFrame(1, 1, 602_000, 10_000, 10_000);
        byte[] head = java.util.Arrays.copyOf(gif, 512 * 1024);
        assertThat(ImageHeader.readPrefix(head).pixels()).as("the prefix alone, as the ingest read it before").isEqualTo(1);
        Path f = dir.resolve("late.gif");
        Files.write(f, gif);
        ImageHeader h = ImageHeader.readPrefix(head, ByteSource.of(f, gif.length));
        assertThat(h.width()).isEqualTo(10_000);
        assertThat(h.gatePixels()).isEqualTo(100_000_000L);
        assertThat(ImageHeader.read(gif).pixels()).isEqualTo(100_000_000L);
    }

    @Test
    void aBaselineJpegWithSeveralScansBuffersTheWholeImageAndOneInterleavedScanDoesNot() throws Exception {
        ImageHeader one = ImageHeader.read(HostileImages.baselineJpeg(64, 48, new int[] {0, 1, 2}));
        assertThat(one.progressive()).isFalse();
        assertThat(one.buffered()).isFalse();
        ImageHeader three = ImageHeader.read(HostileImages.baselineJpeg(64, 48, new int[] {0}, new int[] {1}, new int[] {2}));
        assertThat(three.progressive()).isFalse();
        assertThat(three.buffered()).isTrue();
        assertThat(ImageHeader.read(HostileImages.baselineJpeg(64, 48, new int[] {0})).buffered()).as("one scan of one of three components").isTrue();
    }

    @Test
    void aJpegWithMoreScansThanTheLimitIsOverTheLimit() throws Exception {
        assertThat(ImageHeader.read(HostileImages.baselineJpegWithScans(16, 16, ImageHeader.MAX_JPEG_SCANS)).buffered()).isTrue();
        assertThatThrownBy(() -> ImageHeader.read(HostileImages.baselineJpegWithScans(16, 16, ImageHeader.MAX_JPEG_SCANS + 1)))
                .isInstanceOfSatisfying(ImageHeader.HeaderException.class, e -> assertThat(e.overLimit()).isTrue())
                .hasMessageContaining("scans");
    }

    private static Heif av1Item(Heif f, long id, int w, int h) {
        return f.item(id, "av01", w, h, SEQ_64, HostileImages.av1C(SEQ_64));
    }

    @Test
    void aPlainAv1ItemGivesItsIspe() throws Exception {
        ImageHeader h = ImageHeader.read(av1Item(new Heif("avif"), 1, 64, 64).build());
        assertThat(h).extracting(ImageHeader::format, ImageHeader::width, ImageHeader::height, ImageHeader::decodedPixels)
                .containsExactly(ImageFormat.AVIF, 64, 64, 4096L);
    }

    @Test
    void anAv1SequenceHeaderLargerThanItsIspeIsRefused() {
        byte[] big = HostileImages.av1SequenceHeader(8192, 8192);
        byte[] inConfig = new Heif("avif").item(1, "av01", 64, 64, SEQ_64, HostileImages.av1C(big)).build();
        assertThatThrownBy(() -> ImageHeader.read(inConfig)).isInstanceOf(ImageHeader.HeaderException.class)
                .hasMessageContaining("8192x8192").hasMessageContaining("ispe of 64x64");
        byte[] inData = new Heif("avif").item(1, "av01", 64, 64, big, HostileImages.av1C(SEQ_64)).build();
        assertThatThrownBy(() -> ImageHeader.read(inData)).isInstanceOf(ImageHeader.HeaderException.class).hasMessageContaining("8192x8192");
        byte[] none = new Heif("avif").item(1, "av01", 64, 64, new byte[] {0x12, 0}).build();
        assertThatThrownBy(() -> ImageHeader.read(none)).isInstanceOf(ImageHeader.HeaderException.class).hasMessageContaining("no sequence header");
    }

    @Test
    void anHevcSpsCodingPicturesLargerThanItsIspeIsRefused() throws Exception {
        assertThat(ImageHeader.read(new Heif("heic").item(1, "hvc1", 64, 48, new byte[0], HostileImages.hvcC(64, 48)).build()).pixels()).isEqualTo(3072);
        assertThat(ImageHeader.read(new Heif("heic").item(1, "hvc1", 100, 75, new byte[0], HostileImages.hvcC(104, 80)).build()).pixels())
                .as("coded in whole blocks, cropped by the conformance window").isEqualTo(7500);
        byte[] big = new Heif("heic").item(1, "hvc1", 64, 48, new byte[0], HostileImages.hvcC(8192, 8192)).build();
        assertThatThrownBy(() -> ImageHeader.read(big)).isInstanceOf(ImageHeader.HeaderException.class)
                .hasMessageContaining("8192x8192 (SPS)").hasMessageContaining("ispe of 64x48");
    }

    @Test
    void aGridIsBoundedByItsCanvasAndTiles() throws Exception {
        Heif f = new Heif("avif").grid(1, 128, 100, 2, 2, 128, 100, 2, 3, 4, 5);
        for (long t = 2; t <= 5; t++) av1Item(f, t, 64, 64);
        ImageHeader h = ImageHeader.read(f.build());
        assertThat(h.pixels()).isEqualTo(128 * 100);
        assertThat(h.decodedPixels()).as("four 64x64 tiles").isEqualTo(4 * 64 * 64);
    }

    @Test
    void aGridWhoseCanvasIsLargerThanItsIspeOrWhoseTilesDoNotMatchItIsRefused() {
        Heif wide = new Heif("avif").grid(1, 1024, 1024, 1, 1, 1, 1024, 2);
        av1Item(wide, 2, 64, 64);
        assertThatThrownBy(() -> ImageHeader.read(wide.build())).isInstanceOf(ImageHeader.HeaderException.class).hasMessageContaining("1024x1024 canvas");
        Heif few = new Heif("avif").grid(1, 1024, 1024, 1, 1, 1024, 1024, 2);
        av1Item(few, 2, 64, 64);
        assertThatThrownBy(() -> ImageHeader.read(few.build())).isInstanceOf(ImageHeader.HeaderException.class).hasMessageContaining("do not match");
        Heif cells = new Heif("avif").grid(1, 128, 128, 2, 2, 128, 128, 2, 2, 2);
        av1Item(cells, 2, 64, 64);
        assertThatThrownBy(() -> ImageHeader.read(cells.build())).isInstanceOf(ImageHeader.HeaderException.class).hasMessageContaining("2x2 cells but 3 tiles");
    }

    @Test
    void aGridOfTooManyTilesIsOverTheLimit() {
        int n = HeifHeader.MAX_REFERENCES + 1;
        long[] tiles = new long[n];
        java.util.Arrays.fill(tiles, 2);
        Heif f = new Heif("avif").grid(1, 64 * n, 64, 1, n, 64 * n, 64, tiles);
        av1Item(f, 2, 64, 64);
        assertThatThrownBy(() -> ImageHeader.read(f.build())).isInstanceOfSatisfying(ImageHeader.HeaderException.class, e -> assertThat(e.overLimit()).isTrue());
    }

    @Test
    void aThousandTilesOnOneExtentOfTinyObusIsOverTheLimitNotAWalkOfMillions() {
        // 2000 padding OBUs of 0 bytes before the sequence header, shared by 1000 tiles: 2 million units to walk.
        byte[] padding = new byte[2 * 2000];
        for (int i = 0; i < padding.length; i += 2) padding[i] = (byte) ((15 << 3) | 2); // OBU_PADDING, size 0
        byte[] data = HostileImages.concat(padding, SEQ_64);
        Heif f = new Heif("avif").grid(1, 64 * 40, 64 * 25, 25, 40, 64 * 40, 64 * 25, java.util.stream.LongStream.rangeClosed(2, 1001).toArray());
        for (long t = 2; t <= 1001; t++) f.item(t, "av01", 64, 64, data, HostileImages.av1C(SEQ_64));
        assertThatThrownBy(() -> ImageHeader.read(f.build())).isInstanceOfSatisfying(ImageHeader.HeaderException.class, e -> assertThat(e.overLimit()).isTrue())
                .hasMessageContaining("OBUs");
    }

    @Test
    void referenceCyclesAreRefused() {
        Heif self = new Heif("avif").item(1, "iden", 64, 64, new byte[0]).ref("dimg", 1, 1);
        assertThatThrownBy(() -> ImageHeader.read(self.build())).isInstanceOf(ImageHeader.HeaderException.class).hasMessageContaining("cycle");
        Heif loop = new Heif("avif").item(1, "iden", 64, 64, new byte[0]).item(2, "iden", 64, 64, new byte[0]).ref("dimg", 1, 2).ref("dimg", 2, 1);
        assertThatThrownBy(() -> ImageHeader.read(loop.build())).isInstanceOf(ImageHeader.HeaderException.class).hasMessageContaining("cycle");
    }

    @Test
    void anIdenWhoseSourceIsNoDeclaredItemIsRefused() {
        // Found by GateHoldsDecodersTest on the gate before issue 33: libheif 1.15 died with SIGSEGV on it.
        Heif f = new Heif("avif").item(1, "iden", 64, 64, new byte[0]).ref("dimg", 1, 127);
        assertThatThrownBy(() -> ImageHeader.read(f.build())).isInstanceOf(ImageHeader.HeaderException.class).hasMessageContaining("item 127 is used but not declared");
    }

    @Test
    void anIdenChainDeeperThanTheLimitIsOverIt() throws Exception {
        Heif ok = new Heif("avif").item(1, "iden", 64, 64, new byte[0]).ref("dimg", 1, 2);
        av1Item(ok, 2, 64, 64);
        assertThat(ImageHeader.read(ok.build()).pixels()).isEqualTo(4096);
        Heif deep = new Heif("avif");
        int levels = HeifHeader.MAX_DEPTH + 1;
        for (int i = 1; i <= levels; i++) deep.item(i, "iden", 64, 64, new byte[0]).ref("dimg", i, i + 1);
        av1Item(deep, levels + 1, 64, 64);
        assertThatThrownBy(() -> ImageHeader.read(deep.build())).isInstanceOfSatisfying(ImageHeader.HeaderException.class, e -> assertThat(e.overLimit()).isTrue())
                .hasMessageContaining("deeper");
    }

    @Test
    void anIdenOfALargerImageAndItemsWithoutIspeAreRefused() {
        Heif small = new Heif("avif").item(1, "iden", 8, 8, new byte[0]).ref("dimg", 1, 2);
        av1Item(small, 2, 64, 64);
        assertThatThrownBy(() -> ImageHeader.read(small.build())).isInstanceOf(ImageHeader.HeaderException.class).hasMessageContaining("larger image");
        Heif noIspe = new Heif("avif").item(1, "av01", 0, 0, SEQ_64, HostileImages.av1C(SEQ_64));
        assertThatThrownBy(() -> ImageHeader.read(noIspe.build())).isInstanceOf(ImageHeader.HeaderException.class).hasMessageContaining("no image size (ispe)");
    }

    @Test
    void anAlphaPlaneLargerThanThePrimaryIsRefused() {
        Heif f = av1Item(new Heif("avif"), 1, 64, 64);
        f.item(2, "av01", 4096, 4096, HostileImages.av1SequenceHeader(4096, 4096), HostileImages.av1C(HostileImages.av1SequenceHeader(4096, 4096)));
        f.ref("auxl", 2, 1);
        assertThatThrownBy(() -> ImageHeader.read(f.build())).isInstanceOf(ImageHeader.HeaderException.class).hasMessageContaining("auxiliary");
    }
}
