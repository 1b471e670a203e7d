package com.fairpix.ingest.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fairpix.core.http.ApiProblem;
import com.fairpix.ingest.enqueue.Upload;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bodies are read as they arrive, each limit enforced while reading, nothing left behind. */
class UploadReaderTest {
    static final String BOUNDARY = "----fairpixTestBoundary7MA4YWxk";
    static final String TYPE = "multipart/form-data; boundary=" + BOUNDARY;

    @TempDir Path dir;

    /** An endless stream of zeros that counts what was taken from it. */
    static final class Zeros extends InputStream {
        long read;

        @Override
        public int read() {
            read++;
            return 0;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            java.util.Arrays.fill(b, off, off + len, (byte) 0);
            read += len;
            return len;
        }
    }

    static byte[] multipart(String spec, byte[] image) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (spec != null) {
            out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"spec\"\r\n\r\n" + spec + "\r\n").getBytes(StandardCharsets.UTF_8));
        }
        if (image != null) {
            out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            out.writeBytes(image);
            out.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes(("--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    private long filesLeft() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        }
    }

    @Test
    void aRawBodyIsHashedIntoAFile() throws Exception {
        byte[] image = "not really an image, but bytes".getBytes(StandardCharsets.UTF_8);
        try (Upload u = new UploadReader(dir, java.time.Clock.systemUTC()).readRaw(new ByteArrayInputStream(image), 1000, "acme")) {
            assertThat(u.size()).isEqualTo(image.length);
            assertThat(Files.readAllBytes(u.file())).isEqualTo(image);
            assertThat(u.sha256()).isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(image)));
            assertThat(u.head()).isEqualTo(image);
        }
        assertThat(filesLeft()).isZero();
    }

    @Test
    void anEndlessRawBodyStopsJustPastTheLimit() throws Exception {
        Zeros zeros = new Zeros();
        ApiProblem p = catchThrowableOfType(ApiProblem.class, () -> new UploadReader(dir, java.time.Clock.systemUTC()).readRaw(zeros, 1_000_000, "acme"));
        assertThat(p.status()).isEqualTo(413);
        assertThat(p.slug()).isEqualTo("payload-too-large");
        assertThat(p.detail()).contains("maxUploadBytes", "acme");
        assertThat(zeros.read).isLessThanOrEqualTo(1_000_000 + UploadReader.CHUNK);
        assertThat(filesLeft()).as("the partial file is deleted").isZero();
    }

    @Test
    void theFarmsMaxUploadBytesCapsATenantWhoseOwnLimitIsHigher() throws Exception {
        UploadReader farm = new UploadReader(dir, java.time.Clock.systemUTC(), 100_000);
        Zeros zeros = new Zeros();
        ApiProblem p = catchThrowableOfType(ApiProblem.class, () -> farm.readRaw(zeros, 25L << 20, "acme"));
        assertThat(p.status()).isEqualTo(413);
        assertThat(p.slug()).as("the problem type of the tenant's maxUploadBytes").isEqualTo("payload-too-large");
        assertThat(p.detail()).contains("ingest.max-upload-bytes", "100000");
        assertThat(zeros.read).isLessThanOrEqualTo(100_000 + UploadReader.CHUNK);

        byte[] head = ("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"image\"; filename=\"z\"\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        InputStream body = new java.io.SequenceInputStream(new ByteArrayInputStream(head), new Zeros());
        ApiProblem m = catchThrowableOfType(ApiProblem.class, () -> farm.readMultipart(body, TYPE, 25L << 20, 65_536, "acme"));
        assertThat(m.status()).isEqualTo(413);
        assertThat(m.slug()).isEqualTo("payload-too-large");
        assertThat(m.detail()).contains("ingest.max-upload-bytes");

        ApiProblem own = catchThrowableOfType(ApiProblem.class, () -> farm.readRaw(new Zeros(), 1_000, "acme"));
        assertThat(own.detail()).as("a tenant's own lower limit is named as such").contains("maxUploadBytes", "acme").doesNotContain("ingest.max-upload-bytes");
        assertThat(farm.limit(25L << 20)).isEqualTo(100_000);
        assertThat(filesLeft()).isZero();
    }

    @Test
    void aMultipartBodyGivesImageAndSpec() throws Exception {
        byte[] image = new byte[200_000];
        new java.util.Random(1).nextBytes(image);
        String spec = "{\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":64}]},\"x\":\"é✓\"}";
        UploadReader.Parts parts = new UploadReader(dir, java.time.Clock.systemUTC()).readMultipart(new ByteArrayInputStream(multipart(spec, image)), TYPE, 1_000_000, 65_536, "acme");
        try (Upload u = parts.image()) {
            assertThat(parts.spec()).isEqualTo(spec);
            assertThat(Files.readAllBytes(u.file())).isEqualTo(image);
        }
        assertThat(filesLeft()).isZero();
    }

    @Test
    void aMultipartImageOverTheLimitIs413WhileReading() throws Exception {
        byte[] head = ("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"image\"; filename=\"z\"\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        Zeros zeros = new Zeros();
        InputStream body = new java.io.SequenceInputStream(new ByteArrayInputStream(head), zeros);
        ApiProblem p = catchThrowableOfType(ApiProblem.class, () -> new UploadReader(dir, java.time.Clock.systemUTC()).readMultipart(body, TYPE, 1_000_000, 65_536, "acme"));
        assertThat(p.status()).isEqualTo(413);
        assertThat(p.slug()).isEqualTo("payload-too-large");
        assertThat(zeros.read).isLessThanOrEqualTo(1_000_000 + 2L * UploadReader.CHUNK);
        assertThat(filesLeft()).isZero();
    }

    @Test
    void aSpecPartOverItsLimitIs413SpecTooLarge() throws Exception {
        String spec = "{\"variants\":{}, \"pad\":\"" + "x".repeat(300_000) + "\"}";
        ApiProblem p = catchThrowableOfType(ApiProblem.class, () -> new UploadReader(dir, java.time.Clock.systemUTC())
                .readMultipart(new ByteArrayInputStream(multipart(spec, new byte[10])), TYPE, 1_000_000, 65_536, "acme"));
        assertThat(p.status()).isEqualTo(413);
        assertThat(p.slug()).isEqualTo("spec-too-large");
        assertThat(filesLeft()).isZero();
    }

    @Test
    void staleUploadFilesAreDeletedAtStartAndFreshOnesKept() throws Exception {
        Path stale = Files.writeString(dir.resolve("upload-1.part"), "left by a node that died");
        Files.setLastModifiedTime(stale, java.nio.file.attribute.FileTime.from(java.time.Instant.now().minus(java.time.Duration.ofHours(2))));
        Path fresh = Files.writeString(dir.resolve("upload-2.part"), "another node's upload in flight");
        Path other = Files.writeString(dir.resolve("notes.txt"), "not ours");
        Files.setLastModifiedTime(other, java.nio.file.attribute.FileTime.from(java.time.Instant.now().minus(java.time.Duration.ofHours(2))));
        new UploadReader(dir, java.time.Clock.systemUTC());
        assertThat(stale).doesNotExist();
        assertThat(fresh).exists();
        assertThat(other).exists();
    }

    @Test
    void malformedMultipartIs400() {
        UploadReader r = new UploadReader(dir, java.time.Clock.systemUTC());
        byte[] truncated = java.util.Arrays.copyOf(multipart("{}", new byte[1000]), 400);
        ApiProblem p = catchThrowableOfType(ApiProblem.class, () -> r.readMultipart(new ByteArrayInputStream(truncated), TYPE, 1_000_000, 65_536, "acme"));
        assertThat(p.status()).isEqualTo(400);
        assertThat(p.slug()).isEqualTo("invalid-multipart");
        ApiProblem noBoundary = catchThrowableOfType(ApiProblem.class, () -> r.readMultipart(new ByteArrayInputStream(new byte[0]), "multipart/form-data", 1000, 65_536, "acme"));
        assertThat(noBoundary.slug()).isEqualTo("invalid-multipart");
        ApiProblem noImage = catchThrowableOfType(ApiProblem.class, () -> r.readMultipart(new ByteArrayInputStream(multipart("{}", null)), TYPE, 1000, 65_536, "acme"));
        assertThat(noImage.status()).isEqualTo(400);
        assertThat(noImage.slug()).isEqualTo("missing-image");
    }

    @Test
    void tooManyPartsIs400() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 20; i++) b.append("--").append(BOUNDARY).append("\r\nContent-Disposition: form-data; name=\"p").append(i).append("\"\r\n\r\nx\r\n");
        b.append("--").append(BOUNDARY).append("--\r\n");
        ApiProblem p = catchThrowableOfType(ApiProblem.class, () -> new UploadReader(dir, java.time.Clock.systemUTC())
                .readMultipart(new ByteArrayInputStream(b.toString().getBytes(StandardCharsets.UTF_8)), TYPE, 1000, 65_536, "acme"));
        assertThat(p.status()).isEqualTo(400);
        assertThat(p.detail()).contains("more than 8 parts");
    }

    @Test
    void aBodyThatBreaksOffIs400UploadIncomplete() {
        InputStream broken = new InputStream() {
            int n;

            @Override
            public int read() throws IOException {
                if (n++ > 100) throw new IOException("connection reset");
                return 1;
            }
        };
        ApiProblem p = catchThrowableOfType(ApiProblem.class, () -> new UploadReader(dir, java.time.Clock.systemUTC()).readRaw(broken, 1000, "acme"));
        assertThat(p.status()).isEqualTo(400);
        assertThat(p.slug()).isEqualTo("upload-incomplete");
    }
}
