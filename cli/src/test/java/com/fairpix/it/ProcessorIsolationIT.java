package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.worker.Worker;
import com.fairpix.worker.processor.ProcessorMain;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 32: a crafted input costs only its own job. While tenant B submits steadily, tenant A submits
 * three inputs that trip the processor's test hooks: a native crash (a write to address 1: SIGSEGV),
 * a hang (killed at the deadline) and a heap blow-up. Each A job ends FAILED with its precise reason
 * after two processor deaths, on its first attempt; every B job is DONE on its first attempt, with
 * its processor's CPU time and peak memory on its record; the worker (in this JVM) lives through all
 * of it, its processors being child processes. Runs on the gpu pool (as PoisonJobIT) so that no other
 * test's worker takes the jobs.
 */
class ProcessorIsolationIT {
    @RegisterExtension static final Farm.Ingest farm = new Farm.Ingest();
    static final String SPEC = "{\"pool\":\"gpu\",\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":64},{\"op\":\"encode\",\"format\":\"jpeg\"}]}}";

    @Test
    void aCrashAHangAndABlowUpFailOnlyTheirOwnJobsWithTheirReasons() throws Exception {
        String a = Farm.tenantId("it-proc-a");
        String b = Farm.tenantId("it-proc-b");
        String keyA = farm.client().createTenant(a, Map.of());
        String keyB = farm.client().createTenant(b, Map.of());
        FairpixConfig config = Farm.config().with(Setting.WORKER_POOL, "gpu").with(Setting.WORKER_PORT, "0")
                .with(Setting.WORKER_THREADS, "2").with(Setting.WORKER_JOB_TIMEOUT_SECONDS, "3")
                .with(Setting.WORKER_PROCESSOR_MEMORY_MB, "256").with(Setting.WORKER_PROCESSORS, "process");
        long pid = ProcessHandle.current().pid();
        System.setProperty(ProcessorMain.HOOKS_PROPERTY, "true");
        Worker worker = Worker.start(config, 0);
        List<String> bJobs = new CopyOnWriteArrayList<>();
        AtomicBoolean submitting = new AtomicBoolean(true);
        Thread steady = Thread.ofPlatform().name("tenant-b").start(() -> {
            for (int i = 0; submitting.get() || bJobs.size() < 12; i++) {
                try {
                    bJobs.add(submit(keyB, Farm.smallJpeg(320, 240, i)));
                    Thread.sleep(250);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        try {
            Map<String, String> expected = new LinkedHashMap<>();
            expected.put(submit(keyA, marked(ProcessorMain.CRASH_MARKER)), "decoder-crashed");
            expected.put(submit(keyA, marked(ProcessorMain.HANG_MARKER)), "timeout");
            expected.put(submit(keyA, marked(ProcessorMain.OOM_MARKER)), "out-of-memory");
            for (Map.Entry<String, String> e : expected.entrySet()) {
                JsonNode job = farm.client().awaitTerminal(keyA, e.getKey(), Duration.ofSeconds(60));
                assertThat(job.get("state").asText()).as("%s", job).isEqualTo("FAILED");
                assertThat(job.at("/error/reason").asText()).as("%s", job).isEqualTo(e.getValue());
                assertThat(job.get("attempts").asInt()).as("%s", job).isEqualTo(1);
            }
            assertThat(ProcessHandle.current().pid()).isEqualTo(pid);
            assertThat(ProcessHandle.current().children().count()).as("the worker's processors are child processes of this JVM").isPositive();
        } finally {
            submitting.set(false);
            steady.join(60_000);
        }
        try {
            assertThat(bJobs).hasSizeGreaterThanOrEqualTo(12);
            List<String> notDone = new ArrayList<>();
            for (String id : bJobs) {
                JsonNode job = farm.client().awaitTerminal(keyB, id, Duration.ofSeconds(60));
                if (!job.get("state").asText().equals("DONE") || job.get("attempts").asInt() != 1) notDone.add(job.toString());
                // Measured from its processor: a JVM's resident set is tens of MB.
                assertThat(job.at("/usage/peakRssBytes").asLong()).as("%s", job).isGreaterThan(10L << 20);
                assertThat(job.at("/usage/cpuMillis").asLong()).as("%s", job).isPositive();
            }
            assertThat(notDone).as("B's jobs not DONE on their first attempt").isEmpty();
        } finally {
            worker.stop(Duration.ofSeconds(10));
            System.clearProperty(ProcessorMain.HOOKS_PROPERTY);
        }
    }

    /** A real JPEG with a test hook's marker after its end (decoders ignore what follows EOI; the ingest allows it). */
    static byte[] marked(String marker) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(Farm.smallJpeg(320, 240, marker.length()));
        out.write(marker.getBytes(StandardCharsets.ISO_8859_1));
        return out.toByteArray();
    }

    private static String submit(String key, byte[] image) throws Exception {
        HttpResponse<String> r = farm.client().submitMultipart(key, image, "a.jpg", SPEC);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        return Json.mapper().readTree(r.body()).get("id").asText();
    }
}
