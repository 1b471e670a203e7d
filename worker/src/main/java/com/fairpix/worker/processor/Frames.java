package com.fairpix.worker.processor;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The processor protocol's framing, over a processor's stdin (worker → processor) and stdout
 * (processor → worker): a frame is a 4-byte big-endian length, a JSON header of that length, then
 * the binary parts the header's {@code blobs} array lists by length, back to back. Frame types
 * ({@code type} in the header): {@code hello} (processor: what it reads and writes), {@code job}
 * (worker: spec, original, the assets the spec names), {@code result} (outputs) and {@code error}
 * (a reason in the project's error family). docs/processors.md.
 */
public final class Frames {
    /** Protocol version a hello declares; a worker refuses a processor of another. */
    public static final int VERSION = 1;
    /** Largest JSON header read: a spec is at most spec.max-bytes (64 KiB by default). */
    static final int MAX_HEADER = 4 << 20;
    /** Largest binary part read: an original or an output (uploads are ≤ 50 MiB by default). */
    static final int MAX_BLOB = 1 << 30;

    /** A plain mapper: the processor starts fresh per process, and Blackbird's start-up cost is not worth it for a few small headers. */
    static final ObjectMapper MAPPER = new ObjectMapper()
            .disable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .setSerializationInclusion(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL);

    private Frames() {}

    /** One frame: its header (with {@code type}) and its binary parts. */
    public record Frame(ObjectNode header, List<byte[]> blobs) {
        public String type() {
            return header.path("type").asText();
        }
    }

    public static ObjectNode header(String type) {
        return MAPPER.createObjectNode().put("type", type);
    }

    /** Writes and flushes one frame; adds {@code blobs} (their lengths) to {@code header}. */
    public static void write(DataOutputStream out, ObjectNode header, List<byte[]> blobs) throws IOException {
        ArrayNode lengths = header.putArray("blobs");
        for (byte[] b : blobs) lengths.add(b.length);
        byte[] json = MAPPER.writeValueAsBytes(header);
        out.writeInt(json.length);
        out.write(json);
        for (byte[] b : blobs) out.write(b);
        out.flush();
    }

    /**
     * @return the next frame; null at a clean end of stream (before a frame's first byte)
     * @throws EOFException when the stream ends inside a frame
     * @throws IOException  on a malformed frame (a length out of bounds, a header that is not a JSON object)
     */
    public static Frame read(DataInputStream in) throws IOException {
        int first = in.read();
        if (first < 0) return null;
        int length = (first << 24) | (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
        if (length <= 0 || length > MAX_HEADER) throw new IOException("frame header of " + length + " bytes");
        byte[] json = new byte[length];
        in.readFully(json);
        if (!(MAPPER.readTree(json) instanceof ObjectNode header)) throw new IOException("frame header is not a JSON object");
        List<byte[]> blobs = new ArrayList<>();
        for (var n : header.path("blobs")) {
            long size = n.asLong(-1);
            if (size < 0 || size > MAX_BLOB) throw new IOException("frame part of " + size + " bytes");
            byte[] b = new byte[(int) size];
            in.readFully(b);
            blobs.add(b);
        }
        return new Frame(header, blobs);
    }
}
