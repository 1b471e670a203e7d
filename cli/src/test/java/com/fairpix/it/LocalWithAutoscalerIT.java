package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code fairpix local --with-autoscaler}, run as a user runs it (the packaged jar, its own
 * process): {@code fairpix top --once} and {@code fairpix scale status} answer from its autoscaler,
 * which runs the gpu pool's worker as a process of its own; stopping {@code local} stops that
 * worker too. (Without the flag, {@code top} says in one line what to start: UnreachableServiceTest.)
 */
class LocalWithAutoscalerIT {

    @Test
    void topAndScaleWorkOnTheOneCommandFarmAndStoppingItStopsTheWorkersItStarted() throws Exception {
        String jar = System.getProperty("fairpix.jar");
        assertThat(jar).as("the packaged jar (failsafe sets fairpix.jar)").isNotNull();
        assertThat(Path.of(jar)).exists();
        int ingest = freePort(), worker = freePort(), webhooks = freePort(), autoscaler = freePort();
        Path logs = Files.createDirectories(Path.of("target", "local-with-autoscaler-it"));
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-jar", jar, "local", "--with-autoscaler")
                .redirectErrorStream(true).redirectOutput(logs.resolve("local.log").toFile());
        Map<String, String> env = pb.environment();
        env.put("FAIRPIX_ADMIN_TOKEN", Farm.ADMIN_TOKEN);
        env.put("FAIRPIX_INGEST_PORT", Integer.toString(ingest));
        env.put("FAIRPIX_WORKER_PORT", Integer.toString(worker));
        env.put("FAIRPIX_WEBHOOKS_PORT", Integer.toString(webhooks));
        env.put("FAIRPIX_AUTOSCALER_PORT", Integer.toString(autoscaler));
        env.put("FAIRPIX_AUTOSCALER_INTERVAL_SECONDS", "1");
        env.put("FAIRPIX_AUTOSCALER_LOCAL_LOG_DIR", logs.toAbsolutePath().toString());
        Farm.config(); // the stack's addresses are in this JVM's environment, which the process inherits
        Process local = pb.start();
        List<ProcessHandle> started = new ArrayList<>();
        try {
            String url = "http://127.0.0.1:" + autoscaler;
            long deadline = System.nanoTime() + 90_000_000_000L;
            String[] top = null;
            while (System.nanoTime() < deadline) {
                top = cli("top", "--once", "--url", url, "--admin-token", Farm.ADMIN_TOKEN);
                if (top[0].equals("0") && top[1].contains("gpu") && local.descendants().anyMatch(ProcessHandle::isAlive)) break;
                assertThat(local.isAlive()).as("fairpix local is running: " + Files.readString(logs.resolve("local.log"))).isTrue();
                Thread.sleep(500);
            }
            assertThat(top[0]).as("fairpix top exit code; stderr: " + top[2]).isEqualTo("0");
            assertThat(top[1]).contains("gpu");
            String[] scale = cli("scale", "status", "--url", url, "--admin-token", Farm.ADMIN_TOKEN);
            assertThat(scale[0]).as(scale[2]).isEqualTo("0");
            assertThat(scale[1]).contains("gpu").contains("local");
            local.descendants().forEach(started::add);
            assertThat(started).as("the gpu worker process the autoscaler started").isNotEmpty();
        } finally {
            local.destroy(); // SIGTERM, as Ctrl-C
            if (!local.waitFor(60, TimeUnit.SECONDS)) local.destroyForcibly();
        }
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (started.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) Thread.sleep(200);
        assertThat(started).as("workers left running after fairpix local stopped").noneMatch(ProcessHandle::isAlive);
    }

    private static String[] cli(String... args) {
        picocli.CommandLine cl = com.fairpix.cli.Fairpix.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

}
