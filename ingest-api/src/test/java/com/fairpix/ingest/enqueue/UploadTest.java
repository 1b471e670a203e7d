package com.fairpix.ingest.enqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.image.ImageHeader;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UploadTest {
    @TempDir Path dir;

    /** A JPEG header (SOI, 12 APP2 segments of 64 KiB, then SOF0 of 4000x3000): its frame header lies past the first 512 KiB. */
    static byte[] jpegWithBigMetadata() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0xFF);
        out.write(0xD8);
        for (int i = 0; i < 12; i++) {
            out.write(0xFF);
            out.write(0xE2);
            out.write(0xFF);
            out.write(0xFF); // length 65535 including these two bytes
            out.writeBytes(new byte[65533]);
        }
        out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xC0, 0x00, 0x11, 0x08, 0x0B, (byte) 0xB8, 0x0F, (byte) 0xA0, 0x03,
                0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01});
        out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xD9});
        return out.toByteArray();
    }

    /**
     * Issue 33: the header read stays within the upload's memory however far the frame header is:
     * a JPEG whose SOF sits behind 8 MiB of APP2 segments allocates well under 1 MiB to find it
     * (the old second read took 16 MiB into the heap).
     */
    @Test
    void aFrameHeaderBehindMegabytesOfMetadataIsFoundWithinTheHeaderMemory() throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xD8});
        for (int i = 0; i < 128; i++) {
            out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xE2, (byte) 0xFF, (byte) 0xFF});
            out.writeBytes(new byte[65533]);
        }
        out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xC0, 0x00, 0x11, 0x08, 0x0B, (byte) 0xB8, 0x0F, (byte) 0xA0, 0x03,
                0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01, (byte) 0xFF, (byte) 0xD9});
        byte[] jpeg = out.toByteArray();
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        try (Upload u = Upload.of(jpeg, dir)) {
            u.header(); // warm: class loading is not the header's
            long before = threads.getCurrentThreadAllocatedBytes();
            ImageHeader h = u.header();
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertThat(h.width()).isEqualTo(4000);
            assertThat(allocated).as("bytes allocated by the header read").isLessThan(1L << 20);
            assertThat(Upload.HEADER_MEMORY_BYTES).isLessThan(1 << 20);
        }
    }

    @Test
    void aFrameHeaderPastTheFirst512KiBIsStillFound() throws Exception {
        byte[] jpeg = jpegWithBigMetadata();
        assertThat(jpeg.length).isGreaterThan(Upload.HEAD_BYTES);
        try (Upload u = Upload.of(jpeg, dir)) {
            ImageHeader h = u.header();
            assertThat(h.width()).isEqualTo(4000);
            assertThat(h.height()).isEqualTo(3000);
            assertThat(u.head()).hasSize(Upload.HEAD_BYTES);
        }
        try (var files = Files.list(dir)) {
            assertThat(files).as("closing deletes the file").isEmpty();
        }
    }

    @Test
    void aMalformedHeaderIsRefusedFromTheFirstReadAndARunOutOneIsToldApart() throws Exception {
        byte[] garbage = new byte[512 * 1024 + 4096];
        garbage[0] = (byte) 0xFF;
        garbage[1] = (byte) 0xD8;
        garbage[2] = (byte) 0xFF; // a JPEG's magic, then a segment of length 0: malformed at byte 2
        try (Upload u = Upload.of(garbage, dir)) {
            assertThatThrownBy(u::header).isInstanceOfSatisfying(ImageHeader.HeaderException.class, e -> {
                assertThat(e.truncated()).as("malformed, not cut short: no wider read").isFalse();
                assertThat(e.getMessage()).contains("at byte 2");
            });
        }
        byte[] cut = java.util.Arrays.copyOf(jpegWithBigMetadata(), 300_000); // ends inside the metadata
        assertThatThrownBy(() -> ImageHeader.readPrefix(cut)).isInstanceOfSatisfying(ImageHeader.HeaderException.class,
                e -> assertThat(e.truncated()).as("ran out before the frame header").isTrue());
    }
}
