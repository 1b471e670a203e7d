package com.fairpix.ingest.http;

import com.fairpix.core.config.Setting;
import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.http.Problems;
import com.fairpix.core.job.JobSpec;
import com.fairpix.ingest.enqueue.Upload;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.server.MultiPartParser;

/**
 * Reads a job upload from the request body as it arrives, with every limit enforced while reading:
 * the image goes to a temporary file (hashed on the way) and is refused with 413 the moment it
 * passes the tenant's {@code maxUploadBytes}, whether the body is chunked or has a Content-Length;
 * a {@code spec} part is refused the moment it passes {@code spec.max-bytes}. Memory per upload is
 * one 64 KiB buffer plus the spec. Multipart bodies are parsed with Jetty's streaming
 * {@link MultiPartParser} (RFC 7578), never buffered whole.
 */
public final class UploadReader {
    /** Bytes read from the body per call. */
    static final int CHUNK = 64 * 1024;
    /** Multipart framing allowed beside the parts: boundaries, part headers, preamble, epilogue. */
    static final int FRAMING_BYTES = 64 * 1024;
    /** Parts a multipart body may have (image, spec and a few the client adds); more is a 400. */
    static final int MAX_PARTS = 8;
    /** Header fields one part may have. */
    static final int MAX_PART_FIELDS = 16;

    private final Path dir;
    private final long farmMaxBytes;

    /** Leftover upload files older than this (a node that died mid-upload) are deleted at start. */
    static final java.time.Duration STALE = java.time.Duration.ofHours(1);

    /**
     * @param dir folder for the temporary files (created when missing); {@code upload-*.part} files
     *            in it older than {@link #STALE} are deleted (several nodes may share the folder, and
     *            no upload lasts that long: Jetty's idle timeout ends a stalled one)
     * @param clock the wall clock the files' modification times are compared with
     * @throws UncheckedIOException when the folder cannot be created
     */
    public UploadReader(Path dir, java.time.Clock clock) {
        this(dir, clock, Long.MAX_VALUE);
    }

    /**
     * @param farmMaxBytes {@code ingest.max-upload-bytes}: the largest image any tenant may send, whatever
     *                     its own {@code maxUploadBytes} says
     */
    public UploadReader(Path dir, java.time.Clock clock, long farmMaxBytes) {
        this.farmMaxBytes = farmMaxBytes;
        this.dir = dir;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the upload folder " + dir + ": " + e.getMessage(), e);
        }
        java.time.Instant cutoff = clock.instant().minus(STALE);
        try (var files = Files.newDirectoryStream(dir, "upload-*.part")) {
            for (Path f : files) {
                try {
                    if (Files.getLastModifiedTime(f).toInstant().isBefore(cutoff)) Files.deleteIfExists(f);
                } catch (IOException ignored) {
                    // another node's, or gone already
                }
            }
        } catch (IOException ignored) {
            // nothing to clean
        }
    }

    /** What a multipart body held: the image and the spec (null when it had no spec part). */
    public record Parts(Upload image, String spec) {}

    /**
     * Reads a raw image body.
     *
     * @param maxBytes the tenant's {@code maxUploadBytes}
     * @param tenant   for the problem's detail
     * @throws ApiProblem 413 {@code payload-too-large} as soon as more than {@code maxBytes} arrived;
     *                    400 {@code missing-image} for an empty body, {@code upload-incomplete} when the body breaks off
     */
    public Upload readRaw(InputStream body, long tenantMaxBytes, String tenant) {
        long maxBytes = limit(tenantMaxBytes);
        Sink sink = new Sink(newFile(), maxBytes, tenant, maxBytes < tenantMaxBytes);
        try {
            byte[] buf = new byte[CHUNK];
            int n;
            while ((n = read(body, buf)) > 0) sink.write(buf, 0, n);
            Upload upload = sink.finish();
            if (upload.size() == 0) {
                upload.close();
                throw ApiProblem.badRequest("missing-image", "The image is empty.");
            }
            return upload;
        } catch (RuntimeException e) {
            sink.abandon();
            throw e;
        }
    }

    /**
     * Reads a {@code multipart/form-data} body with an {@code image} part and an optional
     * {@code spec} part; other parts are read and dropped.
     *
     * @param contentType the request's Content-Type, with its boundary
     * @param maxImageBytes the tenant's {@code maxUploadBytes}
     * @param maxSpecBytes  {@code spec.max-bytes}
     * @throws ApiProblem 413 {@code payload-too-large} (image) or {@code spec-too-large} (spec) as soon
     *                    as a part passes its limit; 400 {@code invalid-multipart} for a malformed or
     *                    truncated body, {@code missing-image} without an image part
     */
    public Parts readMultipart(InputStream body, String contentType, long tenantMaxImageBytes, int maxSpecBytes, String tenant) {
        long maxImageBytes = limit(tenantMaxImageBytes);
        boolean farm = maxImageBytes < tenantMaxImageBytes;
        Map<String, String> params = new HashMap<>();
        HttpField.valueParameters(contentType, params);
        String boundary = params.get("boundary");
        if (boundary == null || boundary.isEmpty() || boundary.length() > 70) {
            throw invalid("the Content-Type has no usable boundary parameter (RFC 2046: 1-70 characters)");
        }
        PartHandler handler = new PartHandler(maxImageBytes, maxSpecBytes, tenant, farm);
        MultiPartParser parser = new MultiPartParser(handler, boundary);
        long limit = maxImageBytes + maxSpecBytes + FRAMING_BYTES;
        long total = 0;
        try {
            byte[] buf = new byte[CHUNK];
            while (!handler.complete) {
                int n = read(body, buf);
                boolean last = n <= 0;
                if (!last) {
                    total += n;
                    if (total > limit) {
                        throw handler.image != null && handler.image.size > maxImageBytes / 2
                                ? tooLarge(total, maxImageBytes, tenant, farm)
                                : invalid("the body is over " + limit + " bytes of parts and framing");
                    }
                }
                ByteBuffer chunk = last ? ByteBuffer.allocate(0) : ByteBuffer.wrap(buf, 0, n);
                try {
                    parser.parse(chunk, last);
                } catch (ApiProblem e) {
                    throw e;
                } catch (RuntimeException e) {
                    throw invalid(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
                }
                if (handler.failure != null) throw handler.failure;
                if (last && !handler.complete) throw invalid("the body ends before its closing boundary");
            }
            if (handler.image == null || handler.imageUpload == null) throw ApiProblem.badRequest("missing-image", "The multipart request has no 'image' part.");
            if (handler.imageUpload.size() == 0) throw ApiProblem.badRequest("missing-image", "The image is empty.");
            return new Parts(handler.imageUpload, handler.spec);
        } catch (RuntimeException e) {
            handler.abandon();
            throw e;
        }
    }

    private static int read(InputStream in, byte[] buf) {
        try {
            return in.read(buf);
        } catch (IOException e) {
            // The client went away or broke the framing (a bad chunk): there is no upload to take.
            throw ApiProblem.badRequest("upload-incomplete", "The request body could not be read to its end: " + e.getClass().getSimpleName());
        } catch (RuntimeException e) {
            // Jetty reports bad chunked framing as BadMessageException.
            throw ApiProblem.badRequest("upload-incomplete", "The request body could not be read to its end: " + e.getClass().getSimpleName());
        }
    }

    private Path newFile() {
        try {
            return Files.createTempFile(dir, "upload-", ".part");
        } catch (IOException e) {
            throw ApiProblem.unavailable("upload-storage", "This node cannot store uploads right now; try again shortly.", 5);
        }
    }

    /** The largest image a tenant whose own limit is {@code tenantMaxBytes} may send here: the smaller of it and the farm's. */
    public long limit(long tenantMaxBytes) {
        return Math.min(tenantMaxBytes, farmMaxBytes);
    }

    /** 413 for an upload over the tenant's {@code maxUploadBytes}, or over the farm's cap when that is the smaller. */
    ApiProblem overLimit(long bytes, long tenantMaxBytes, String tenant) {
        long max = limit(tenantMaxBytes);
        return tooLarge(bytes, max, tenant, max < tenantMaxBytes);
    }

    /** @param farm the farm's cap ({@code ingest.max-upload-bytes}) is the limit passed, not the tenant's own */
    static ApiProblem tooLarge(long bytes, long max, String tenant, boolean farm) {
        String whose = farm ? "this farm accepts at most " + max + " bytes from any tenant (" + Setting.MAX_UPLOAD_BYTES.key() + ")"
                : "tenant '" + tenant + "' accepts at most " + max + " bytes (maxUploadBytes)";
        return ApiProblem.tooLarge("The upload is over " + max + " bytes (" + bytes + " read so far); " + whose + ".").with("limit", max)
                // The rest of the body is not wanted: close rather than read and drop it to keep the connection.
                .header("Connection", "close");
    }

    private static ApiProblem invalid(String why) {
        return ApiProblem.badRequest("invalid-multipart", "The multipart/form-data body is malformed: " + why);
    }

    /** The image's temporary file, counted and hashed as it is written. */
    private final class Sink {
        final Path file;
        final long max;
        final String tenant;
        final boolean farm;
        final OutputStream out;
        final MessageDigest sha;
        long size;

        Sink(Path file, long max, String tenant, boolean farm) {
            this.file = file;
            this.max = max;
            this.tenant = tenant;
            this.farm = farm;
            try {
                this.out = Files.newOutputStream(file);
                this.sha = MessageDigest.getInstance("SHA-256");
            } catch (IOException | NoSuchAlgorithmException e) {
                abandonQuietly(file);
                throw ApiProblem.unavailable("upload-storage", "This node cannot store uploads right now; try again shortly.", 5);
            }
        }

        void write(byte[] b, int off, int len) {
            size += len;
            if (size > max) throw tooLarge(size, max, tenant, farm);
            sha.update(b, off, len);
            try {
                out.write(b, off, len);
            } catch (IOException e) {
                throw ApiProblem.unavailable("upload-storage", "This node cannot store uploads right now (" + e.getMessage() + "); try again shortly.", 5);
            }
        }

        void write(ByteBuffer b) {
            if (b.hasArray()) {
                write(b.array(), b.arrayOffset() + b.position(), b.remaining());
            } else {
                byte[] copy = new byte[b.remaining()];
                b.duplicate().get(copy);
                write(copy, 0, copy.length);
            }
        }

        Upload finish() {
            try {
                out.close();
            } catch (IOException e) {
                throw ApiProblem.unavailable("upload-storage", "This node cannot store uploads right now; try again shortly.", 5);
            }
            return new Upload(file, size, HexFormat.of().formatHex(sha.digest()));
        }

        void abandon() {
            try {
                out.close();
            } catch (IOException ignored) {
                // deleting it anyway
            }
            abandonQuietly(file);
        }
    }

    private static void abandonQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // named upload-*.part in the upload folder
        }
    }

    /** Routes each part's bytes: image → file, spec → bounded buffer, others → counted and dropped. */
    private final class PartHandler implements MultiPartParser.Handler {
        final long maxImage;
        final int maxSpec;
        final String tenant;
        final boolean farm;
        int parts;
        int fields;
        String name;
        String target; // "image", "spec" or null (dropped)
        Sink image;
        Upload imageUpload;
        ByteArrayOutputStream specBytes;
        String spec;
        long dropped;
        boolean complete;
        ApiProblem failure;

        PartHandler(long maxImage, int maxSpec, String tenant, boolean farm) {
            this.maxImage = maxImage;
            this.maxSpec = maxSpec;
            this.tenant = tenant;
            this.farm = farm;
        }

        @Override
        public void startPart() {
            parts++;
            fields = 0;
            name = null;
            target = null;
        }

        @Override
        public void parsedField(String field, String value) {
            if (++fields > MAX_PART_FIELDS && failure == null) failure = invalid("a part has more than " + MAX_PART_FIELDS + " header fields");
            if (field.equalsIgnoreCase("Content-Disposition")) {
                Map<String, String> p = new HashMap<>();
                String disposition = HttpField.valueParameters(value, p);
                if (disposition != null && disposition.trim().toLowerCase(Locale.ROOT).equals("form-data")) name = p.get("name");
            }
        }

        @Override
        public boolean headerComplete() {
            if (parts > MAX_PARTS) return fail(invalid("more than " + MAX_PARTS + " parts"));
            if (failure != null) return true;
            if ("image".equals(name)) {
                if (image != null) return fail(invalid("more than one 'image' part"));
                image = new Sink(newFile(), maxImage, tenant, farm);
                target = "image";
            } else if ("spec".equals(name)) {
                if (specBytes != null) return fail(invalid("more than one 'spec' part"));
                specBytes = new ByteArrayOutputStream();
                target = "spec";
            }
            return false;
        }

        @Override
        public boolean content(ByteBuffer buffer, boolean last) {
            try {
                int n = buffer.remaining();
                if ("image".equals(target)) {
                    image.write(buffer);
                    if (last) imageUpload = image.finish();
                } else if ("spec".equals(target)) {
                    if (specBytes.size() + n > maxSpec) return fail(Problems.of(JobSpec.tooLarge(-1, maxSpec)));
                    byte[] b = new byte[n];
                    buffer.get(b);
                    specBytes.write(b, 0, n);
                    if (last) spec = specBytes.toString(StandardCharsets.UTF_8);
                } else {
                    dropped += n;
                    if (dropped > FRAMING_BYTES) return fail(invalid("parts other than 'image' and 'spec' are over " + FRAMING_BYTES + " bytes"));
                }
                return false;
            } catch (ApiProblem e) {
                return fail(e);
            }
        }

        @Override
        public boolean messageComplete() {
            complete = true;
            return true;
        }

        @Override
        public void earlyEOF() {
            if (failure == null) failure = invalid("the body ends before its closing boundary");
        }

        private boolean fail(ApiProblem p) {
            if (failure == null) failure = p;
            return true;
        }

        void abandon() {
            if (imageUpload != null) imageUpload.close();
            else if (image != null) image.abandon();
        }
    }
}
