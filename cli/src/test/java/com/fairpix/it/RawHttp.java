package com.fairpix.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * HTTP/1.1 over a plain socket, for what java.net.http will not do: a body that streams while the
 * answer is read (so a server that answers early is seen answering early), a declared length that
 * is never sent, an upload held open half-way.
 */
final class RawHttp {
    private RawHttp() {}

    /** The answer: status, headers (lower-case names), body as UTF-8, and how many body bytes had been sent when it came. */
    record Answer(int status, Map<String, String> headers, String body, long bytesSentBeforeAnswer) {}

    /**
     * Sends {@code prefix}, then {@code zeros} zero bytes, as a chunked body in 64 KiB chunks,
     * stopping as soon as the answer's status line has arrived (or the server closed the connection).
     */
    static Answer chunked(int port, String requestLine, Map<String, String> headers, byte[] prefix, long zeros, byte[] suffix) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(60_000);
            OutputStream out = s.getOutputStream();
            StringBuilder head = new StringBuilder(requestLine).append("\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n");
            headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
            // The answer is read from the start: a server may refuse the head itself (a request line
            // over its limit) and close while it is still being written.
            CompletableFuture<Answer> answer = CompletableFuture.supplyAsync(() -> read(s));
            long sent = 0;
            try {
                out.write(head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
                if (prefix.length > 0) chunk(out, prefix, prefix.length);
                byte[] buf = new byte[64 * 1024];
                while (sent < zeros && !answer.isDone()) {
                    int n = (int) Math.min(buf.length, zeros - sent);
                    chunk(out, buf, n);
                    sent += n;
                }
                if (!answer.isDone()) {
                    if (suffix.length > 0) chunk(out, suffix, suffix.length);
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                }
            } catch (IOException closedByServer) {
                // the server answered and closed the connection while we were still sending
            }
            Answer a = answer.get(60, TimeUnit.SECONDS);
            return checked(requestLine, new Answer(a.status(), a.headers(), a.body(), sent));
        }
    }

    /**
     * Sends the head of a request that declares {@code contentLength} body bytes and then only
     * {@code firstBytes} of them, and reads the answer. (Jetty dispatches a request with a body once
     * its first bytes arrive, or at once with {@code Expect: 100-continue}.)
     */
    static Answer declaredOnly(int port, String requestLine, Map<String, String> headers, long contentLength, int firstBytes) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            StringBuilder head = new StringBuilder(requestLine).append("\r\nHost: 127.0.0.1\r\nContent-Length: ").append(contentLength).append("\r\n");
            headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
            OutputStream out = s.getOutputStream();
            out.write(head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(new byte[firstBytes]);
            out.flush();
            return checked(requestLine, read(s));
        }
    }

    /** Holds an answer to the ingest's OpenAPI document, as Farm.Client does for its own (none: the server closed without one). */
    static Answer checked(String requestLine, Answer a) {
        if (a.status() <= 0) return a;
        String[] parts = requestLine.split(" ");
        String type = a.headers().entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase("content-type")).map(Map.Entry::getValue).findFirst().orElse(null);
        OpenApiContract.of("ingest").check(parts[0], java.net.URI.create(parts[1]).getPath(), a.status(), type, a.body());
        return a;
    }

    /** Opens a chunked upload and sends {@code bytes} of it, then leaves it open (a slow client). */
    static Socket holdOpen(int port, String requestLine, Map<String, String> headers, int bytes) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(30_000);
        OutputStream out = s.getOutputStream();
        StringBuilder head = new StringBuilder(requestLine).append("\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n");
        headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        out.write(head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
        chunk(out, new byte[bytes], bytes);
        return s;
    }

    private static void chunk(OutputStream out, byte[] b, int n) throws IOException {
        out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.write(b, 0, n);
        out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Reads one answer: status line, headers, a Content-Length or chunked body (or up to the close). */
    static Answer read(Socket s) {
        try {
            InputStream in = s.getInputStream();
            String status = line(in);
            if (status == null) throw new IOException("connection closed before an answer");
            Map<String, String> headers = new LinkedHashMap<>();
            for (String l = line(in); l != null && !l.isEmpty(); l = line(in)) {
                int c = l.indexOf(':');
                if (c > 0) headers.put(l.substring(0, c).trim().toLowerCase(Locale.ROOT), l.substring(c + 1).trim());
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            if (headers.containsKey("content-length")) {
                body.writeBytes(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
            } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
                for (int n = Integer.parseInt(line(in).trim(), 16); n > 0; n = Integer.parseInt(line(in).trim(), 16)) {
                    body.writeBytes(in.readNBytes(n));
                    line(in);
                }
            }
            return new Answer(Integer.parseInt(status.split(" ")[1]), headers, body.toString(StandardCharsets.UTF_8), -1);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') break;
            if (c != '\r') b.write(c);
        }
        return c < 0 && b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }
}
