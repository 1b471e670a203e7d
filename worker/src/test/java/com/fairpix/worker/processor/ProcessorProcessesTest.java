package com.fairpix.worker.processor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.error.Permanent;
import com.fairpix.core.job.JobSpec;
import com.fairpix.worker.process.Assets;
import com.fairpix.worker.process.ImagePipeline;
import com.fairpix.worker.process.ImageProcessor;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real processor processes (child JVMs of this test's JVM) on small inputs: a job comes back as the
 * in-process pipeline makes it, with its CPU time and peak memory; a native crash and a native
 * allocation past the address-space limit (the processor's test hooks) each fail only their own
 * job, with their reason, after two processor deaths; a processor has no credentials in its
 * environment and, sandboxed, no network. One pool for all of them: each processor start costs
 * about half a CPU-second. The hang (timeout) and the heap blow-up are in ProcessorIsolationIT.
 */
class ProcessorProcessesTest {
    static final JobSpec SPEC = JobSpec.parse("{\"variants\":{\"thumb\":[{\"op\":\"resize\",\"width\":32},{\"op\":\"encode\",\"format\":\"png\"}]}}");
    static ProcessorProcesses processors;

    @BeforeAll
    static void start() {
        System.setProperty(ProcessorMain.HOOKS_PROPERTY, "true");
        processors = ProcessorProcesses.start(2, 100_000_000, Duration.ofSeconds(2), 256L << 20, 256, true);
    }

    @AfterAll
    static void stop() {
        processors.close();
        System.clearProperty(ProcessorMain.HOOKS_PROPERTY);
    }

    static byte[] jpeg(String trailer) throws Exception {
        BufferedImage image = new BufferedImage(64, 48, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 48; y++) for (int x = 0; x < 64; x++) image.setRGB(x, y, (x * 4) << 16 | (y * 5) << 8 | 128);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(image, "jpeg", out);
        out.write(trailer.getBytes(StandardCharsets.ISO_8859_1)); // after EOI: ignored by the decoder
        return out.toByteArray();
    }

    @Test
    void aJobComesBackAsTheInProcessPipelineMakesItWithItsUsage() throws Exception {
        byte[] source = jpeg("");
        ImageProcessor.Processed done = processors.process("job-plain", source, SPEC, Assets.NONE);
        Map<String, ImagePipeline.Output> local = new ImagePipeline(100_000_000).process(source, SPEC);
        assertThat(done.outputs()).containsOnlyKeys("thumb");
        ImagePipeline.Output thumb = done.outputs().get("thumb");
        assertThat(thumb.data()).isEqualTo(local.get("thumb").data());
        assertThat(thumb.width()).isEqualTo(32);
        assertThat(thumb.height()).isEqualTo(24);
        assertThat(thumb.encode()).isEqualTo(local.get("thumb").encode());
        assertThat(done.usage()).isNotNull();
        assertThat(done.usage().cpuMillis()).isPositive();
        assertThat(done.usage().peakRssBytes()).as("a JVM's resident set").isGreaterThan(10L << 20);
    }

    @Test
    void aProcessorRunsAtTheNiceValueOfTheThreadThatUsesIt() throws Exception {
        java.util.concurrent.atomic.AtomicReference<Object> seen = new java.util.concurrent.atomic.AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                if (!com.fairpix.core.os.CpuPriority.lowerCurrentThread(10)) {
                    seen.set("cannot lower a thread's priority here");
                    return;
                }
                List<Long> before = processors.pids();
                processors.process("job-nice", jpeg(""), SPEC, Assets.NONE);
                List<Long> now = new java.util.ArrayList<>(processors.pids());
                now.removeAll(before);
                // (Another new one may be a background replacement of one an earlier test's crash killed.)
                seen.set(now.isEmpty() ? "no new processor" : now.stream()
                        .map(pid -> com.fairpix.core.os.CpuPriority.niceOf(java.nio.file.Path.of("/proc", pid.toString(), "stat"))).toList());
            } catch (Exception e) {
                seen.set(e);
            }
        });
        t.join();
        org.junit.jupiter.api.Assumptions.assumeFalse("cannot lower a thread's priority here".equals(seen.get()));
        assertThat(seen.get()).as("a processor started for a thread at nice 10").asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST).contains(10);
    }

    @Test
    void aNativeCrashFailsItsJobAsDecoderCrashedAfterTwoDeathsAndTheNextJobRuns() throws Exception {
        assertThatThrownBy(() -> processors.process("job-crash", jpeg(ProcessorMain.CRASH_MARKER), SPEC, Assets.NONE))
                .isInstanceOf(Permanent.class).hasFieldOrPropertyWithValue("reason", "decoder-crashed")
                .hasMessageContaining("SIGSEGV").hasMessageContaining("2 processors died");
        assertThat(processors.process("job-after-crash", jpeg(""), SPEC, Assets.NONE).outputs()).containsKey("thumb");
    }

    @Test
    void aNativeAllocationPastTheAddressSpaceLimitFailsItsJobAsOutOfMemory() {
        org.junit.jupiter.api.Assumptions.assumeTrue(ProcessorLauncher.which("prlimit").isPresent(), "no prlimit here: no address-space limit");
        assertThatThrownBy(() -> processors.process("job-malloc", jpeg(ProcessorMain.NATIVE_OOM_MARKER), SPEC, Assets.NONE))
                .isInstanceOf(Permanent.class).hasFieldOrPropertyWithValue("reason", "out-of-memory");
    }

    @Test
    void aPipelineErrorKeepsItsReasonAndItsProcessor() throws Exception {
        List<Long> before = processors.pids();
        assertThatThrownBy(() -> processors.process("job-garbage", "not an image at all".getBytes(StandardCharsets.UTF_8), SPEC, Assets.NONE))
                .isInstanceOf(Permanent.class).extracting("reason").isNotIn("decoder-crashed", "timeout", "out-of-memory");
        if (!before.isEmpty()) assertThat(processors.pids()).containsAnyElementsOf(before);
    }

    @Test
    void aProcessorHasNoCredentialsAndNoNetworkWhenSandboxed() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() ->
                    processors.process("job-probe", jpeg(ProcessorMain.PROBE_MARKER + server.getLocalPort() + " "), SPEC, Assets.NONE));
            assertThat(thrown).isInstanceOf(Permanent.class).hasFieldOrPropertyWithValue("reason", "test-probe");
            var report = Frames.MAPPER.readTree(thrown.getMessage());
            List<String> env = new java.util.ArrayList<>();
            report.get("env").forEach(n -> env.add(n.asText()));
            assertThat(env).noneMatch(n -> n.startsWith("FAIRPIX_") || n.startsWith("AWS_")).contains("PATH").containsOnlyOnceElementsOf(env);
            assertThat(env).isSubsetOf(java.util.stream.Stream.concat(ProcessorLauncher.KEPT_ENV.stream(), java.util.stream.Stream.of("MALLOC_ARENA_MAX", "OPENBLAS_NUM_THREADS", "PWD")).toList());
            assertThat(env).as("OpenBLAS held to one thread").contains("OPENBLAS_NUM_THREADS");
            if (ProcessorLauncher.sandboxWorks()) assertThat(report.get("network").asText()).startsWith("refused");
        }
    }

    /**
     * The worker's secrets on disk: a credentials file where an operator might keep one (outside
     * /tmp, which the sandbox always replaced), and the worker JVM's own environment through
     * /proc/&lt;pid&gt;/environ. Both readable by the worker's user; neither by its processors.
     */
    @Test
    void aSandboxedProcessorCannotReadTheWorkersSecretsOnDisk() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ProcessorLauncher.sandboxWorks(), "no sandbox here (bubblewrap or namespaces missing)");
        Path secrets = Path.of("target", "probe-secrets").toAbsolutePath();
        Files.createDirectories(secrets);
        Path credentials = Files.writeString(secrets.resolve("s3.properties"), "s3.secret-key=not-for-processors\n");
        String environ = "/proc/" + ProcessHandle.current().pid() + "/environ";
        assertThat(Files.readAllBytes(credentials)).as("the premise: the worker's user reads it").isNotEmpty();
        assertThat(Files.readAllBytes(Path.of(environ))).as("the premise: the worker reads its own environment").isNotEmpty();
        try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> processors.process("job-probe-files",
                    jpeg(ProcessorMain.PROBE_MARKER + server.getLocalPort() + " read=" + credentials + ";" + environ + " "), SPEC, Assets.NONE));
            assertThat(thrown).isInstanceOf(Permanent.class).hasFieldOrPropertyWithValue("reason", "test-probe");
            var report = Frames.MAPPER.readTree(thrown.getMessage());
            assertThat(report.path("read").path(credentials.toString()).asText()).as("the credentials file").startsWith("refused");
            if (ProcessorLauncher.ownPids()) {
                assertThat(report.path("read").path(environ).asText()).as("the worker's environment").startsWith("refused");
                assertThat(report.path("processesVisible").asLong()).as("its own pid namespace: itself and bubblewrap's init").isBetween(1L, 3L);
            }
        }
    }
}
