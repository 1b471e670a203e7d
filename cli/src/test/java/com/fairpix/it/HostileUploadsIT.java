package com.fairpix.it;

import static com.fairpix.it.HostileFarm.MIB;
import static com.fairpix.it.HostileFarm.THUMB;
import static com.fairpix.it.HostileFarm.assertProblem;
import static com.fairpix.it.HostileFarm.jobsPath;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tenant A's oversized and endless uploads: 400 MB chunked bodies (raw and multipart) are 413 at the
 * tenant's 25 MiB limit while they are still being sent, with the ingest heap bounded (under 16 MiB
 * of growth, below the upload limit, so buffering the allowed body would show); a declared 400 MB
 * body is 413 from its Content-Length; an oversized spec part is 413, not 500; slow uploads hold
 * only A's own upload slots. B's service around these attacks: {@link HostileFarm} (B is paused
 * during the two 400 MB uploads, which measure the heap).
 */
class HostileUploadsIT {
    @RegisterExtension
    static final HostileFarm farm = new HostileFarm("uploads");

    @Test
    void a400MbChunkedUploadIs413AtTheLimitWithTheHeapBounded() throws Exception {
        // B's own allocations would blur the figure, and the GC before measuring would stall its job.
        farm.withBPaused(() -> {
            RawHttp.Answer[] answer = new RawHttp.Answer[1];
            long growth = heapGrowth(() -> answer[0] = RawHttp.chunked(farm.port(), jobsPath(THUMB),
                    Map.of("Authorization", "Bearer " + farm.keyA(), "Content-Type", "image/png"), new byte[0], 400 * MIB, new byte[0]));
            JsonNode p = assertProblem(413, "payload-too-large", answer[0].status(), answer[0].headers(), answer[0].body());
            assertThat(p.get("limit").asLong()).isEqualTo(25 * MIB);
            // The refusal cost A's budget the 25 MiB the node read, not one token: at most 100 − 26,
            // refilling at 10 tokens/s since (a refusal counted without its bytes would leave 99).
            assertThat(farm.ingest().refusals().tokens(farm.tenantA())).as("A's refusal budget after a 25 MiB refusal").isLessThan(90.0);
            System.out.printf("HostileUploadsIT: 400 MB chunked raw upload: 413 after %d MB sent; ingest heap grew %.1f MB at peak%n",
                    answer[0].bytesSentBeforeAnswer() / MIB, growth / (double) MIB);
            // On loopback the client sends a few hundred MB/s, so how far it got says little about where the
            // server stopped reading; what must hold is that the 413 came before the body ended.
            assertThat(answer[0].bytesSentBeforeAnswer()).as("the answer comes while the body is still being sent").isLessThan(400 * MIB);
            assertThat(growth).as("heap growth under the 25 MiB upload limit").isLessThan(16 * MIB);
        });
    }

    @Test
    void a400MbChunkedMultipartImageIs413WithTheHeapBounded() throws Exception {
        farm.withBPaused(() -> {
            String boundary = "hostile" + UUID.randomUUID().toString().replace("-", "");
            byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"spec\"\r\n\r\n" + THUMB + "\r\n--" + boundary
                    + "\r\nContent-Disposition: form-data; name=\"image\"; filename=\"zeros.png\"\r\nContent-Type: image/png\r\n\r\n").getBytes(StandardCharsets.UTF_8);
            byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
            RawHttp.Answer[] answer = new RawHttp.Answer[1];
            long growth = heapGrowth(() -> answer[0] = RawHttp.chunked(farm.port(), "POST /v1/jobs HTTP/1.1",
                    Map.of("Authorization", "Bearer " + farm.keyA(), "Content-Type", "multipart/form-data; boundary=" + boundary), head, 400 * MIB, tail));
            assertProblem(413, "payload-too-large", answer[0].status(), answer[0].headers(), answer[0].body());
            System.out.printf("HostileUploadsIT: 400 MB chunked multipart image: 413 after %d MB sent; ingest heap grew %.1f MB at peak%n",
                    answer[0].bytesSentBeforeAnswer() / MIB, growth / (double) MIB);
            assertThat(answer[0].bytesSentBeforeAnswer()).isLessThan(400 * MIB);
            assertThat(growth).as("heap growth under the 25 MiB upload limit").isLessThan(16 * MIB);
        });
    }

    @Test
    void aDeclared400MbBodyIs413BeforeTheBodyIsRead() throws Exception {
        // A client sending 400 MB: the answer comes after its first 64 KiB, from Content-Length alone.
        long t0 = System.nanoTime();
        RawHttp.Answer a = RawHttp.declaredOnly(farm.port(), jobsPath(THUMB),
                Map.of("Authorization", "Bearer " + farm.keyA(), "Content-Type", "image/png"), 400 * MIB, 64 * 1024);
        assertProblem(413, "payload-too-large", a.status(), a.headers(), a.body());
        // A client that asks first (Expect: 100-continue) gets the 413 instead of 100 Continue, before sending anything.
        RawHttp.Answer b = RawHttp.declaredOnly(farm.port(), jobsPath(THUMB),
                Map.of("Authorization", "Bearer " + farm.keyA(), "Content-Type", "image/png", "Expect", "100-continue"), 400 * MIB, 0);
        assertProblem(413, "payload-too-large", b.status(), b.headers(), b.body());
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aMultipartSpecPartOver64KiBIs413SpecTooLargeNot500() throws Exception {
        String spec = HostileFarm.oversizedSpec();
        JsonNode p = assertProblem(413, "spec-too-large", farm.attacker().submitMultipart(farm.keyA(), farm.photoB(), "a.jpg", spec));
        assertThat(p.get("limit").asInt()).isEqualTo(65_536);
        // the same spec in the query string: the request line is over Jetty's header limit, refused before
        // any handler (read while the request is still being sent: Jetty answers and closes mid-request)
        RawHttp.Answer q = RawHttp.chunked(farm.port(), jobsPath(spec.substring(0, 70_000)),
                Map.of("Authorization", "Bearer " + farm.keyA(), "Content-Type", "image/jpeg"), farm.photoB(), 0, new byte[0]);
        assertThat(q.status()).as("Jetty's refusal of the request line: URI or header too long").isIn(414, 431);
    }

    @Test
    void slowUploadsHoldOnlyTheTenantsOwnSlots() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < 8; i++) held.add(farm.holdUpload());
            // Until all 8 are in flight on the server: one that was answered (a 429 while an earlier
            // request of A's still held a slot) is replaced.
            for (int round = 0; round < 20; round++) {
                Thread.sleep(100);
                boolean allHeld = true;
                for (int i = 0; i < held.size(); i++) {
                    if (held.get(i).getInputStream().available() > 0) {
                        held.get(i).close();
                        held.set(i, farm.holdUpload());
                        allHeld = false;
                    }
                }
                if (allHeld) break;
            }
            long deadline = System.nanoTime() + 5_000_000_000L;
            HttpResponse<String> ninth = farm.attacker().submitRaw(farm.keyA(), farm.photoB(), "image/jpeg", THUMB);
            while (ninth.statusCode() != 429 && System.nanoTime() < deadline) {
                Thread.sleep(50); // the held uploads may not all have reached the handler yet
                ninth = farm.attacker().submitRaw(farm.keyA(), farm.photoB(), "image/jpeg", THUMB);
            }
            if (ninth.statusCode() != 429) {
                // Say what became of the held uploads, if the server answered any of them.
                StringBuilder what = new StringBuilder();
                for (Socket s : held) {
                    s.setSoTimeout(200);
                    try {
                        RawHttp.Answer a = RawHttp.read(s);
                        what.append(a.status()).append(' ').append(a.body()).append('\n');
                    } catch (RuntimeException e) {
                        what.append("still open (").append(e.getCause() == null ? e : e.getCause().getClass().getSimpleName()).append(")\n");
                    }
                }
                throw new AssertionError("the 9th upload got " + ninth.statusCode() + "; the held ones:\n" + what);
            }
            JsonNode p = assertProblem(429, "too-many-uploads", ninth);
            assertThat(p.get("limit").asInt()).isEqualTo(8);
            assertThat(ninth.headers().firstValue("Retry-After")).hasValue("1");
            // Meanwhile tenant B uploads as usual.
            assertThat(farm.client().submitMultipart(farm.keyB(), farm.photoB(), "b.jpg", THUMB).statusCode()).isEqualTo(202);
        } finally {
            for (Socket s : held) s.close();
        }
        // The abandoned uploads free their slots (each ends as a 400 upload-incomplete on the server).
        long deadline = System.nanoTime() + 10_000_000_000L;
        int status;
        do {
            Thread.sleep(50);
            status = farm.attacker().submitRaw(farm.keyA(), farm.photoB(), "image/jpeg", THUMB).statusCode();
        } while (status == 429 && System.nanoTime() < deadline);
        assertThat(status).isEqualTo(202);
    }

    /**
     * Heap in use, bytes, sampled every 2 ms on a thread of its own while {@code work} runs; returns
     * the peak over the starting level (and prints it beside the JVM's direct buffers and the bytes
     * all threads allocated meanwhile).
     */
    private static long heapGrowth(HostileFarm.ThrowingRunnable work) throws Exception {
        var memory = ManagementFactory.getMemoryMXBean();
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        var direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).findFirst().orElseThrow();
        System.gc();
        Thread.sleep(200);
        long base = memory.getHeapMemoryUsage().getUsed();
        long directBase = direct.getMemoryUsed();
        long allocatedBase = threads.getTotalThreadAllocatedBytes();
        AtomicLong directPeak = new AtomicLong(directBase);
        AtomicLong peak = new AtomicLong(base);
        AtomicBoolean sampling = new AtomicBoolean(true);
        Thread sampler = Thread.ofPlatform().daemon().name("attacker-sampler").start(() -> {
            while (sampling.get()) {
                peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                directPeak.accumulateAndGet(direct.getMemoryUsed(), Math::max);
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        try {
            work.run();
        } finally {
            sampling.set(false);
            sampler.join();
        }
        System.out.printf("HostileUploadsIT: heap %.1f MB before, peak +%.1f MB; direct buffers peak +%.1f MB; %.1f MB allocated by all threads meanwhile%n",
                base / (double) MIB, (peak.get() - base) / (double) MIB, (directPeak.get() - directBase) / (double) MIB,
                (threads.getTotalThreadAllocatedBytes() - allocatedBase) / (double) MIB);
        return peak.get() - base;
    }
}
