package com.fairpix.core.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fairpix.core.Corpus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Reading dimensions, orientation and completeness from image headers, on the real corpus. */
class ImageHeaderTest {
    private static final Pattern SIZE = Pattern.compile("(\\d+)x(\\d+) c\\d+ CV_\\w+");
    private static final Pattern ORIENTED = Pattern.compile("(Landscape|Portrait)_(\\d)\\.jpg");

    /**
     * Every corpus JPEG/PNG/WebP that OpenCV decoded, with the stored size it gave under
     * IMREAD_UNCHANGED (which does not apply EXIF orientation, so it is the size in the header).
     * The MANIFEST's "expected" column is not used for the size: it says 32x32 for every PngSuite
     * file, but cdhn2c08 and cdsn2c08 really are 32x8 and 8x8.
     */
    static Stream<Corpus.Row> decodableFiles() {
        return decodableRows("cameratrap-photos", "exif-orientation", "pngsuite", "sharp-fixtures");
    }

    private static Stream<Corpus.Row> decodableRows(String... suites) {
        Corpus.root(); // skips, rather than failing on zero arguments, without the corpus
        return Stream.of(suites)
                .flatMap(suite -> Corpus.manifest(suite).stream())
                .filter(r -> formatByExtension(r.file()) != null)
                .filter(r -> r.get("opencv490_IMREAD_UNCHANGED") != null && SIZE.matcher(r.get("opencv490_IMREAD_UNCHANGED")).matches());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("decodableFiles")
    void headerGivesTheStoredSizeOpenCvDecodes(Corpus.Row row) throws Exception {
        Matcher m = SIZE.matcher(row.get("opencv490_IMREAD_UNCHANGED"));
        assertThat(m.matches()).isTrue();

        ImageHeader h = ImageHeader.read(Corpus.bytes(row.relative()));

        assertThat(h).isNotNull();
        assertThat(h.format()).isEqualTo(formatByExtension(row.file()));
        assertThat(h.width()).as("width").isEqualTo(Integer.parseInt(m.group(1)));
        assertThat(h.height()).as("height").isEqualTo(Integer.parseInt(m.group(2)));
    }

    @Test
    void theCorpusHasEnoughFilesForTheSizeTest() {
        Corpus.root();
        assertThat(decodableFiles().count()).isGreaterThan(100);
    }

    /**
     * Fuzzed files OpenCV still decoded: the header must give OpenCV's size or refuse the file
     * cleanly. (The reader is stricter than libjpeg, which skips stray bytes between markers; 5 of
     * the shared fuzzed JPEGs are refused that way, a clean rejection the corpus allows.)
     */
    static Stream<Corpus.Row> fuzzedFilesOpenCvDecodes() {
        return decodableRows("imagetestsuite");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fuzzedFilesOpenCvDecodes")
    void fuzzedFileHeaderGivesOpenCvsSizeOrACleanRefusal(Corpus.Row row) {
        Matcher m = SIZE.matcher(row.get("opencv490_IMREAD_UNCHANGED"));
        assertThat(m.matches()).isTrue();

        Throwable t = catchThrowable(() -> {
            ImageHeader h = ImageHeader.read(Corpus.bytes(row.relative()));
            assertThat(h).isNotNull();
            assertThat(h.format()).isEqualTo(formatByExtension(row.file()));
            assertThat(h.width()).as("width").isEqualTo(Integer.parseInt(m.group(1)));
            assertThat(h.height()).as("height").isEqualTo(Integer.parseInt(m.group(2)));
        });

        if (t != null) assertThat(t).isInstanceOf(ImageHeader.HeaderException.class);
    }

    @Test
    void randomlyDamagedHeadersFailOnlyWithHeaderException() {
        java.util.Random random = new java.util.Random(20240611);
        List<String> seeds = List.of("exif-orientation/Landscape_6.jpg", "cameratrap-photos/ocelot.jpg",
                "pngsuite/basn6a16.png", "sharp-fixtures/4.webp", "sharp-fixtures/5_webp_a.webp");
        for (String seed : seeds) {
            byte[] original = Corpus.bytes(seed);
            byte[] head = Arrays.copyOf(original, Math.min(original.length, 4096));
            for (int trial = 0; trial < 2000; trial++) {
                byte[] d = head.clone();
                int flips = 1 + random.nextInt(4);
                // Keep the magic bytes, so the format parser (not the sniffer) sees the damage.
                for (int f = 0; f < flips; f++) d[12 + random.nextInt(Math.min(d.length, 600) - 12)] = (byte) random.nextInt(256);
                byte[] cut = random.nextBoolean() ? d : Arrays.copyOf(d, random.nextInt(d.length));
                Throwable t = catchThrowable(() -> ImageHeader.read(cut));
                if (t != null) {
                    assertThat(t).as(seed + " trial " + trial).isInstanceOf(ImageHeader.HeaderException.class);
                }
            }
        }
    }

    @Test
    void realPhotosMatchTheSizesTheManifestExpects() throws Exception {
        assertThat(read("cameratrap-photos/african_elephants.jpg")).extracting(ImageHeader::width, ImageHeader::height).containsExactly(2048, 1536);
        assertThat(read("cameratrap-photos/blank2.jpg")).extracting(ImageHeader::width, ImageHeader::height).containsExactly(3264, 2448);
        assertThat(read("cameratrap-photos/ocelot.jpg")).extracting(ImageHeader::width, ImageHeader::height).containsExactly(1046, 802);
        assertThat(read("sharp-fixtures/Flag_of_the_Netherlands.png")).extracting(ImageHeader::width, ImageHeader::height).containsExactly(900, 600);
        assertThat(read("sharp-fixtures/4.webp")).extracting(ImageHeader::format, ImageHeader::width, ImageHeader::height)
                .containsExactly(ImageFormat.WEBP, 1024, 772);
    }

    static Stream<String> orientationExamples() {
        Path dir = Corpus.root().resolve("exif-orientation");
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> ORIENTED.matcher(n).matches()).sorted().toList().stream();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("orientationExamples")
    void exifOrientationIsTheDigitInTheFileNameAndZeroMeansAbsent(String file) throws Exception {
        Matcher m = ORIENTED.matcher(file);
        assertThat(m.matches()).isTrue();
        int n = Integer.parseInt(m.group(2));

        ImageHeader h = read("exif-orientation/" + file);

        assertThat(h.orientation()).isEqualTo(n == 0 ? 1 : n);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("orientationExamples")
    void displaySizeIsUprightWhateverTheOrientation(String file) throws Exception {
        ImageHeader h = read("exif-orientation/" + file);
        boolean landscape = file.startsWith("Landscape");

        assertThat(h.displayWidth()).isEqualTo(landscape ? 1800 : 1200);
        assertThat(h.displayHeight()).isEqualTo(landscape ? 1200 : 1800);
        // 5–8 are stored transposed: the stored size is the display size turned a quarter.
        if (h.orientation() >= 5) {
            assertThat(h.transposed()).isTrue();
            assertThat(h.width()).isEqualTo(h.displayHeight());
            assertThat(h.height()).isEqualTo(h.displayWidth());
        } else {
            assertThat(h.transposed()).isFalse();
            assertThat(h.width()).isEqualTo(h.displayWidth());
        }
    }

    @ParameterizedTest(name = "orientation {0}")
    @CsvSource({"1,false", "2,false", "3,false", "4,false", "5,true", "6,true", "7,true", "8,true"})
    void orientationsFiveToEightSwapWidthAndHeight(int orientation, boolean swapped) {
        ImageHeader h = new ImageHeader(ImageFormat.JPEG, 400, 300, orientation, false, true);

        assertThat(h.transposed()).isEqualTo(swapped);
        assertThat(h.displayWidth()).isEqualTo(swapped ? 300 : 400);
        assertThat(h.displayHeight()).isEqualTo(swapped ? 400 : 300);
        assertThat(h.pixels()).isEqualTo(120_000);
    }

    @Test
    void cameraTrapPhotoWithOrientationSixIsStoredPortraitAndShownLandscape() throws Exception {
        ImageHeader h = read("cameratrap-photos/african_elephants_with_exif_orientation.jpg");

        assertThat(h.orientation()).isEqualTo(6);
        assertThat(h.width()).isEqualTo(1536);
        assertThat(h.height()).isEqualTo(2048);
        assertThat(h.displayWidth()).isEqualTo(2048);
        assertThat(h.displayHeight()).isEqualTo(1536);
    }

    @Test
    void textAndJpeg2000AreNotSniffedAsAnAcceptedFormat() throws Exception {
        byte[] text = "hello, this is not an image\n".getBytes(StandardCharsets.UTF_8);
        byte[] jp2 = Corpus.bytes("sharp-fixtures/relax.jp2");

        assertThat(ImageFormat.sniff(text)).isNull();
        assertThat(ImageFormat.sniff(jp2)).isNull();
        assertThat(ImageFormat.sniff(new byte[0])).isNull();
        assertThat(ImageFormat.sniff(new byte[] {(byte) 0xFF, (byte) 0xD8})).as("two bytes of a JPEG").isNull();
        assertThat(ImageFormat.sniff("BM this is text, not a bitmap".getBytes(StandardCharsets.US_ASCII))).as("BM without a DIB header size").isNull();
        assertThat(ImageHeader.read(text)).isNull();
        assertThat(ImageHeader.read(jp2)).isNull();
    }

    @Test
    void theNewInputFormatsAreSniffedByTheirMagicBytes() throws Exception {
        assertThat(ImageFormat.sniff(Corpus.bytes("sharp-fixtures/G31D.TIF"))).isEqualTo(ImageFormat.TIFF);
        assertThat(ImageFormat.sniff(Corpus.bytes("sharp-fixtures/grey-plus-alpha.gif"))).isEqualTo(ImageFormat.GIF);
        assertThat(ImageFormat.sniff(Corpus.bytes("sharp-fixtures/pitm.avif"))).isEqualTo(ImageFormat.AVIF);
        byte[] heicStart = {0, 0, 0, 24, 'f', 't', 'y', 'p', 'h', 'e', 'i', 'c', 0, 0, 0, 0, 'm', 'i', 'f', '1', 'h', 'e', 'i', 'c'};
        assertThat(ImageFormat.sniff(heicStart)).isEqualTo(ImageFormat.HEIC);
        byte[] mp4Start = {0, 0, 0, 20, 'f', 't', 'y', 'p', 'i', 's', 'o', 'm', 0, 0, 2, 0, 'm', 'p', '4', '1'};
        assertThat(ImageFormat.sniff(mp4Start)).as("an MP4 video is not a HEIF").isNull();
    }

    @Test
    void tiffHeaderIsReadFromADirectoryAfterThePixelsAndGivesOrientationAndPages() throws Exception {
        int[] px = new int[4 * 3 * 3];
        byte[] tiff = TestTiff.rgb(4, 3, px, 8, 6, 1);
        byte[] head = Arrays.copyOf(tiff, 8); // the directory lies beyond these bytes

        ImageHeader h = ImageHeader.read(tiff);
        assertThat(h).extracting(ImageHeader::format, ImageHeader::width, ImageHeader::height, ImageHeader::orientation, ImageHeader::pages)
                .containsExactly(ImageFormat.TIFF, 4, 3, 6, 1);
        assertThat(h.complete()).isTrue();
        assertThat(h.displayWidth()).isEqualTo(3);
        assertThatThrownBy(() -> ImageHeader.readPrefix(head)).isInstanceOf(ImageHeader.HeaderException.class)
                .satisfies(e -> assertThat(((ImageHeader.HeaderException) e).truncated()).isTrue());
        ImageHeader viaFile = ImageHeader.readPrefix(head, ByteSource.of(tiff, true));
        assertThat(viaFile.width()).isEqualTo(4);
        assertThat(ImageHeader.read(TestTiff.rgb(4, 3, px, 8, 1, 3)).pages()).as("multi-page").isEqualTo(2);
        assertThat(ImageHeader.read(Corpus.bytes("sharp-fixtures/G31D_MULTI.TIF")).pages()).isEqualTo(2);
        assertThat(ImageHeader.read(Corpus.bytes("sharp-fixtures/fogra-0-100-100-0.tif")).cmyk()).isTrue();
    }

    @Test
    void tiffWhoseStripRunsPastTheEndIsIncomplete() throws Exception {
        byte[] tiff = TestTiff.rgb(40, 30, new int[40 * 30 * 3], 8, 1, 1);
        assertThat(ImageHeader.read(tiff).complete()).isTrue();
        // StripByteCounts (tag 279, LONG) claims 1000 bytes more than the file holds.
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(tiff).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int entry = -1;
        for (int i = 8; i + 12 <= tiff.length; i++) if (b.getShort(i) == 279 && b.getShort(i + 2) == 4 && b.getInt(i + 4) == 1) entry = i;
        b.putInt(entry + 8, b.getInt(entry + 8) + 1000);
        assertThat(ImageHeader.read(tiff).complete()).isFalse();
    }

    @Test
    void gifFramesAreCountedAndTheLargestFrameSetsTheSize() throws Exception {
        ImageHeader still = ImageHeader.read(Corpus.bytes("sharp-fixtures/grey-plus-alpha.gif"));
        assertThat(still).extracting(ImageHeader::width, ImageHeader::height, ImageHeader::animated, ImageHeader::alpha).containsExactly(2, 1, false, true);
        ImageHeader animated = ImageHeader.read(Corpus.bytes("sharp-fixtures/rotating-squares.gif"));
        assertThat(animated.animated()).isTrue();
        assertThat(animated.pages()).isEqualTo(30);

        // A 1x1 logical screen with a 20000x20000 frame: the decoder would allocate the frame.
        byte[] gif = {'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0, 0, 0, 0,
            0x2C, 0, 0, 0, 0, 0x20, 0x4E, 0x20, 0x4E, 0, 2, 2, 0x4C, 0x01, 0, 0x3B};
        ImageHeader big = ImageHeader.read(gif);
        assertThat(big.pixels()).isEqualTo(400_000_000L);
        byte[] cutInBlock = Arrays.copyOf(gif, 26);
        assertThat(ImageHeader.read(cutInBlock).complete()).as("cut inside the image data").isFalse();
    }

    @Test
    void bmpHeaderGivesTheSizeOfATopDownBitmapAndNoticesMissingRows() throws Exception {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(54 + 4 * 3 * 4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 'B').put((byte) 'M').putInt(b.capacity()).putInt(0).putInt(54);
        b.putInt(40).putInt(3).putInt(-4).putShort((short) 1).putShort((short) 24).putInt(0).putInt(0).putInt(0).putInt(0).putInt(0).putInt(0);
        byte[] bmp = b.array();
        ImageHeader h = ImageHeader.read(bmp);
        assertThat(h).extracting(ImageHeader::format, ImageHeader::width, ImageHeader::height, ImageHeader::complete).containsExactly(ImageFormat.BMP, 3, 4, true);
        assertThat(ImageHeader.read(Arrays.copyOf(bmp, bmp.length - 12)).complete()).isFalse();
    }

    @Test
    void avifHeaderGivesThePrimaryItemsSize() throws Exception {
        ImageHeader h = ImageHeader.read(Corpus.bytes("sharp-fixtures/pitm.avif"));
        assertThat(h).extracting(ImageHeader::format, ImageHeader::width, ImageHeader::height, ImageHeader::animated).containsExactly(ImageFormat.AVIF, 4096, 800, false);
    }

    @Test
    void pngHeaderSaysWhetherItsColourTypeCarriesAlpha() throws Exception {
        assertThat(ImageHeader.read(Corpus.bytes("pngsuite/basn6a08.png")).alpha()).as("RGBA").isTrue();
        assertThat(ImageHeader.read(Corpus.bytes("pngsuite/basn4a16.png")).alpha()).as("grey + alpha").isTrue();
        assertThat(ImageHeader.read(Corpus.bytes("pngsuite/basn2c16.png")).alpha()).as("RGB").isFalse();
    }

    /** A little-endian TIFF of one IFD at offset 8 whose entries are {tag, SHORT value}, in this order. */
    private static byte[] tiffWith(int[]... entries) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8 + 2 + entries.length * 12 + 4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 'I').put((byte) 'I').putShort((short) 42).putInt(8).putShort((short) entries.length);
        for (int[] e : entries) b.putShort((short) e[0]).putShort((short) 3).putInt(1).putShort((short) e[1]).putShort((short) 0);
        return b.putInt(0).array();
    }

    @Test
    void tiffDuplicateTagsCountOnceAsLibtiffReadsThem() throws Exception {
        // libtiff keeps the first ImageWidth: a second of 1 must not hide 20000 from the pixel gate.
        ImageHeader h = ImageHeader.read(tiffWith(new int[] {256, 20000}, new int[] {256, 1}, new int[] {257, 20000}, new int[] {257, 1}));
        assertThat(h.pixels()).isEqualTo(400_000_000L);
    }

    @Test
    void tiffWithTilesFarLargerThanTheImageOrWideSamplesIsRefusedFromTheHeader() {
        assertThatThrownBy(() -> ImageHeader.read(tiffWith(new int[] {256, 16}, new int[] {257, 16}, new int[] {322, 15360}, new int[] {323, 15360})))
                .isInstanceOf(ImageHeader.HeaderException.class).hasMessageContaining("tiles");
        assertThatThrownBy(() -> ImageHeader.read(tiffWith(new int[] {256, 16}, new int[] {257, 16}, new int[] {258, 64})))
                .isInstanceOf(ImageHeader.HeaderException.class).hasMessageContaining("64 bits");
    }

    @Test
    void tiffAlphaIsAnAssociatedOrUnassociatedExtraSampleOnly() throws Exception {
        assertThat(ImageHeader.read(tiffWith(new int[] {256, 4}, new int[] {257, 4}, new int[] {262, 2}, new int[] {338, 0})).alpha()).as("unspecified").isFalse();
        assertThat(ImageHeader.read(tiffWith(new int[] {256, 4}, new int[] {257, 4}, new int[] {262, 2}, new int[] {338, 2})).alpha()).as("unassociated").isTrue();
    }

    @Test
    void aTiffInALabColourSpaceIsToldApart() {
        for (int lab : new int[] {8, 9, 10}) { // CIELab, ICCLab, ITULab
            assertThat(ImageHeader.tiffLab(tiffWith(new int[] {256, 4}, new int[] {257, 4}, new int[] {262, lab}))).as("photometric " + lab).isTrue();
        }
        assertThat(ImageHeader.tiffLab(tiffWith(new int[] {256, 4}, new int[] {257, 4}, new int[] {262, 2}))).as("RGB").isFalse();
        assertThat(ImageHeader.tiffLab(tiffWith(new int[] {256, 4}, new int[] {257, 4}))).as("no photometric tag").isFalse();
        assertThat(ImageHeader.tiffLab(java.util.Arrays.copyOf(tiffWith(new int[] {262, 8}), 12))).as("cut inside the IFD").isFalse();
        assertThat(ImageHeader.tiffLab(new byte[] {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, 0, 0, 0, 0, 0})).as("a JPEG").isFalse();
    }

    @Test
    void heifBoxesThatLieAboutTheirSizeAreRefusedNotThrownOut() {
        byte[] shortFtyp = new byte[32];
        System.arraycopy(new byte[] {0, 0, 0, 8, 'f', 't', 'y', 'p', 'h', 'e', 'i', 'c', 0, 0, 0, 0, 'm', 'i', 'f', '1'}, 0, shortFtyp, 0, 20);
        assertThat(ImageFormat.sniff(shortFtyp)).isEqualTo(ImageFormat.HEIC);
        assertThatThrownBy(() -> ImageHeader.read(shortFtyp)).isInstanceOf(ImageHeader.HeaderException.class);

        java.nio.ByteBuffer huge = java.nio.ByteBuffer.allocate(40);
        huge.putInt(24).put("ftypheic".getBytes(StandardCharsets.US_ASCII)).putInt(0).put("mif1heic".getBytes(StandardCharsets.US_ASCII));
        huge.putInt(1).put("free".getBytes(StandardCharsets.US_ASCII)).putLong(Long.MAX_VALUE - 27);
        byte[] d = huge.array();
        assertThatThrownBy(() -> ImageHeader.read(d)).isInstanceOf(ImageHeader.HeaderException.class);
        assertThatThrownBy(() -> ImageHeader.readPrefix(d, ByteSource.of(d, true))).isInstanceOf(ImageHeader.HeaderException.class);
    }

    @Test
    void orientationsComposeAsTheDihedralGroup() {
        assertThat(Orientation.then(6, 6)).as("90° clockwise twice").isEqualTo(3);
        assertThat(Orientation.then(8, 6)).isEqualTo(1);
        assertThat(Orientation.then(1, 2)).isEqualTo(2);
        assertThat(Orientation.then(6, 2)).as("90° clockwise, then mirror left-right: a transpose").isEqualTo(5);
        for (int o = 1; o <= 8; o++) assertThat(Orientation.then(o, 1)).isEqualTo(o);
    }

    @Test
    void pngWhoseSignatureIsDamagedIsNotAPng() {
        for (String f : List.of("xs1n0g01.png", "xs2n0g01.png", "xs7n0g01.png")) {
            assertThat(ImageFormat.sniff(Corpus.bytes("pngsuite/" + f))).as(f).isNull();
        }
    }

    @Test
    void jpegCutInHalfIsIncompleteWhileTheWholeFileIsComplete() throws Exception {
        byte[] whole = Corpus.bytes("cameratrap-photos/african_elephants.jpg");
        byte[] half = Arrays.copyOf(whole, whole.length / 2);

        ImageHeader full = ImageHeader.read(whole);
        ImageHeader cut = ImageHeader.read(half);

        assertThat(full.complete()).isTrue();
        assertThat(cut.complete()).isFalse();
        assertThat(cut.width()).as("the header itself is intact").isEqualTo(2048);
        assertThat(cut.height()).isEqualTo(1536);
    }

    @Test
    void sharpsTruncatedJpegIsIncomplete() throws Exception {
        ImageHeader h = read("sharp-fixtures/truncated.jpg");

        assertThat(h.complete()).isFalse();
        assertThat(h.width()).isEqualTo(2725);
        assertThat(h.height()).isEqualTo(2225);
    }

    @Test
    void pngCutAfterTheSignatureThrows() {
        byte[] png = Corpus.bytes("sharp-fixtures/Flag_of_the_Netherlands.png");
        byte[] signatureOnly = Arrays.copyOf(png, 8);

        assertThat(ImageFormat.sniff(signatureOnly)).isEqualTo(ImageFormat.PNG);
        assertThatThrownBy(() -> ImageHeader.read(signatureOnly)).isInstanceOf(ImageHeader.HeaderException.class);
    }

    @Test
    void pngCutInsideItsDataIsIncomplete() throws Exception {
        byte[] png = Corpus.bytes("pngsuite/basn2c16.png");

        assertThat(ImageHeader.read(png).complete()).isTrue();
        assertThat(ImageHeader.read(Arrays.copyOf(png, png.length / 2)).complete()).isFalse();
    }

    @Test
    void pngWithZeroWidthThrows() {
        byte[] png = Corpus.bytes("pngsuite/basn3p08.png");
        byte[] zero = png.clone();
        Arrays.fill(zero, 16, 20, (byte) 0); // IHDR width

        assertThatThrownBy(() -> ImageHeader.read(zero)).isInstanceOf(ImageHeader.HeaderException.class).hasMessageContaining("dimensions");
    }

    @Test
    void decompressionBombSizeIsReadWithoutOverflow() throws Exception {
        ImageHeader png = read("sharp-fixtures/65536-uint32-limit.png");
        ImageHeader jpeg = read("sharp-fixtures/giant-image.jpg");

        assertThat(png.width()).isEqualTo(65536);
        assertThat(png.height()).isEqualTo(65536);
        assertThat(png.pixels()).isEqualTo(4_294_967_296L);
        assertThat(jpeg.pixels()).isEqualTo(280_000_000L);
    }

    @Test
    void animatedWebpIsFlaggedAndStillWebpIsNot() throws Exception {
        ImageHeader animated = read("sharp-fixtures/rotating-squares.webp");
        ImageHeader alpha = read("sharp-fixtures/5_webp_a.webp");
        ImageHeader lossy = read("sharp-fixtures/4.webp");

        assertThat(animated.animated()).isTrue();
        assertThat(animated.width()).isEqualTo(80);
        assertThat(animated.height()).isEqualTo(80);
        assertThat(alpha.animated()).isFalse();
        assertThat(alpha.width()).isEqualTo(300);
        assertThat(alpha.height()).isEqualTo(300);
        assertThat(lossy.animated()).isFalse();
    }

    @Test
    void losslessWebpSizeComesFromTheVp8lBitfield() throws Exception {
        // RFC 9649 §3.2.2: signature 0x2F, then 14 bits width-1, 14 bits height-1 (little-endian).
        int w = 300, h = 200;
        long bits = (w - 1) | ((long) (h - 1) << 14);
        byte[] d = new byte[40];
        System.arraycopy("RIFF".getBytes(StandardCharsets.US_ASCII), 0, d, 0, 4);
        System.arraycopy("WEBPVP8L".getBytes(StandardCharsets.US_ASCII), 0, d, 8, 8);
        d[20] = 0x2F;
        for (int i = 0; i < 4; i++) d[21 + i] = (byte) (bits >>> (8 * i));

        ImageHeader header = ImageHeader.read(d);

        assertThat(header.format()).isEqualTo(ImageFormat.WEBP);
        assertThat(header.width()).isEqualTo(300);
        assertThat(header.height()).isEqualTo(200);
    }

    @Test
    void exifWithAnIfdOffsetPastTheEndIsIgnoredNotACrash() throws Exception {
        // A JPEG whose EXIF block points its first IFD 4 GB away (a fuzzed offset).
        byte[] exif = {
            'E', 'x', 'i', 'f', 0, 0,
            'M', 'M', 0, 42, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0x00,
        };
        byte[] jpeg = jpegWithApp1(exif, 64, 48);

        ImageHeader h = ImageHeader.read(jpeg);

        assertThat(h.orientation()).isEqualTo(1);
        assertThat(h.width()).isEqualTo(64);
        assertThat(h.height()).isEqualTo(48);
    }

    @Test
    void exifOrientationIsReadFromABigEndianIfd() throws Exception {
        byte[] exif = {
            'E', 'x', 'i', 'f', 0, 0,
            'M', 'M', 0, 42, 0, 0, 0, 8,        // TIFF header, IFD0 at 8
            0, 1,                                // one entry
            0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0, // Orientation, SHORT, 1, value 8
            0, 0, 0, 0,                          // no next IFD
        };

        ImageHeader h = ImageHeader.read(jpegWithApp1(exif, 64, 48));

        assertThat(h.orientation()).isEqualTo(8);
        assertThat(h.displayWidth()).isEqualTo(48);
    }

    /** Every file of the corpus: a header, null (not an accepted format) or a HeaderException, nothing else. */
    static Stream<Path> everyCorpusFile() throws IOException {
        Path root = Corpus.root();
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile)
                    .filter(p -> !p.getFileName().toString().endsWith(".md") && !p.getFileName().toString().endsWith(".tsv"))
                    .sorted().toList().stream();
        }
    }

    @Test
    void noCorpusFileMakesTheHeaderReaderFailOtherThanWithHeaderException() throws IOException {
        List<Path> files = everyCorpusFile().toList();
        assertThat(files).hasSizeGreaterThan(100);
        for (Path p : files) {
            byte[] data = Files.readAllBytes(p);
            Throwable t = catchThrowable(() -> ImageHeader.read(data));
            assertThat(t).as(Corpus.root().relativize(p).toString()).satisfiesAnyOf(
                    x -> assertThat(x).isNull(),
                    x -> assertThat(x).isInstanceOf(ImageHeader.HeaderException.class));
        }
    }

    /** A minimal JPEG: SOI, APP1 with {@code app1}, SOF0 of the given size, EOI. */
    private static byte[] jpegWithApp1(byte[] app1, int width, int height) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write(0xFF); out.write(0xD8);
        out.write(0xFF); out.write(0xE1);
        int len = app1.length + 2;
        out.write(len >> 8); out.write(len & 0xFF);
        out.writeBytes(app1);
        out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xC0, 0, 11, 8,
            (byte) (height >> 8), (byte) height, (byte) (width >> 8), (byte) width, 1, 1, 0x11, 0});
        out.write(0xFF); out.write(0xD9);
        return out.toByteArray();
    }

    private static ImageHeader read(String relative) throws ImageHeader.HeaderException {
        ImageHeader h = ImageHeader.read(Corpus.bytes(relative));
        assertThat(h).as(relative).isNotNull();
        return h;
    }

    private static ImageFormat formatByExtension(String file) {
        String f = file.toLowerCase(Locale.ROOT);
        if (f.endsWith(".jpg") || f.endsWith(".jpeg")) return ImageFormat.JPEG;
        if (f.endsWith(".png")) return ImageFormat.PNG;
        if (f.endsWith(".webp")) return ImageFormat.WEBP;
        return null;
    }

    @Test
    void aPrefixGivesTheHeaderWithoutClaimingTheFileIsComplete() throws Exception {
        byte[] photo = Corpus.bytes("cameratrap-photos/human.jpg");
        ImageHeader whole = ImageHeader.read(photo);
        ImageHeader head = ImageHeader.readPrefix(java.util.Arrays.copyOf(photo, 64 * 1024));
        // The whole file, which ends in EOI, read as a prefix: a walk or the EOI shortcut would say complete.
        ImageHeader unchecked = ImageHeader.readPrefix(photo);

        assertThat(whole.complete()).isTrue();
        assertThat(unchecked.complete()).as("readPrefix does not check the end at all").isFalse();
        assertThat(head).isEqualTo(unchecked)
                .isEqualTo(new ImageHeader(whole.format(), whole.width(), whole.height(), whole.orientation(), whole.animated(), false, whole.progressive()));
    }

    @Test
    void aJpegThatEndsInEoiIsCompleteAndOneCutAnywhereBeforeIsNot() throws Exception {
        byte[] photo = Corpus.bytes("sharp-fixtures/Landscape_9.jpg");
        assertThat(ImageHeader.read(photo).complete()).isTrue();
        // Cuts through the last tenth (entropy-coded data; this photo's metadata fills its first half): none may pass.
        for (int cut = photo.length - 1; cut > photo.length * 9 / 10; cut -= 97) {
            assertThat(ImageHeader.read(java.util.Arrays.copyOf(photo, cut)).complete()).as("cut at %d of %d", cut, photo.length).isFalse();
        }
    }
}
