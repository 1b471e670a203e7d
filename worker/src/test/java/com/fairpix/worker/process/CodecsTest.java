package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CodecsTest {
    @Test
    void theBundledCodecsAreReadFromOpenCvsBuildInformation() {
        String info = """
                  Media I/O:\s
                    ZLib:                        build (ver 1.3)
                    JPEG:                        build-libjpeg-turbo (ver 2.1.3-62)
                    WEBP:                        build (ver encoder: 0x020f)
                    PNG:                         /usr/lib/x86_64-linux-gnu/libpng.so (ver 1.6.39)
                    TIFF:                        build (ver 42 - 4.2.0)
                """;
        assertThat(Codecs.bundled(info)).containsExactly(
                java.util.Map.entry("zlib", "1.3"),
                java.util.Map.entry("jpeg", "libjpeg-turbo 2.1.3-62"),
                java.util.Map.entry("webp", "0x020f"),
                java.util.Map.entry("png", "system 1.6.39"),
                java.util.Map.entry("tiff", "4.2.0"));
    }

    @Test
    void opencv413ListsWebpsDecoderEncoderAndDemuxAndTheEncodersVersionIsKept() {
        String info = """
                    ZLib:                        build (ver 1.3.1)
                    JPEG:                        build-libjpeg-turbo (ver 3.1.2-70)
                    WEBP:                        build (ver decoder: 0x0210, encoder: 0x0210, demux: 0x0107)
                    PNG:                         build (ver 1.6.53)
                    TIFF:                        build (ver 42 - 4.7.1)
                """;
        assertThat(Codecs.bundled(info)).containsExactly(
                java.util.Map.entry("zlib", "1.3.1"),
                java.util.Map.entry("jpeg", "libjpeg-turbo 3.1.2-70"),
                java.util.Map.entry("webp", "0x0210"),
                java.util.Map.entry("png", "1.6.53"),
                java.util.Map.entry("tiff", "4.7.1"));
    }

    @Test
    void theLoadedOpenCvReportsItsCodecVersions() {
        var v = Codecs.versions();
        assertThat(v.get("opencv")).isEqualTo(org.opencv.core.Core.VERSION);
        assertThat(v).containsKeys("jpeg", "png", "webp", "tiff");
        assertThat(v.get("jpeg")).as("the JPEG codec and its version").matches("libjpeg-turbo \\d+\\.\\d+.*");
        // The SIMD build (issue 35): libjpeg-turbo 3, whose SIMD the build information reports.
        assertThat(v.get("jpeg")).startsWith("libjpeg-turbo 3.");
        assertThat(org.opencv.core.Core.getBuildInformation()).containsPattern("JPEG:[^\\n]*libjpeg-turbo[^\\n]*\\n[^\\n]*\\n\\s*SIMD Support:\\s+YES");
    }
}
