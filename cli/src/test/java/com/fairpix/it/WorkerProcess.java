package com.fairpix.it;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A real {@code fairpix worker} process (the packaged jar), for kill and restart tests. */
final class WorkerProcess implements AutoCloseable {
    private final Process process;
    final Path log;

    private WorkerProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    static WorkerProcess start(String pool, int threads) throws IOException {
        return start(pool, threads, Map.of());
    }

    /** @param env extra environment (FAIRPIX_* settings) */
    static WorkerProcess start(String pool, int threads, Map<String, String> env) throws IOException {
        String jar = System.getProperty("fairpix.jar");
        if (jar == null || !new File(jar).isFile()) throw new IllegalStateException("fairpix.jar not built: " + jar);
        String java = ProcessHandle.current().info().command().orElse("java");
        Path log = Files.createTempFile(Path.of("target"), "worker-" + pool + "-", ".log");
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
                "-jar", jar, "worker", "--pool", pool, "--port", "0", "--threads", Integer.toString(threads)))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().putAll(env);
        return new WorkerProcess(pb.start(), log);
    }

    /** Waits up to {@code timeout} for the process to end; its exit code, or null while it runs. */
    Integer awaitExit(java.time.Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : null;
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** SIGKILL: no shutdown hook, no commit, no goodbye to the group. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** SIGTERM, then wait for the graceful exit. */
    int terminate(long seconds) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return -1;
        }
        return process.exitValue();
    }

    /** True once the worker has logged an assignment of at least one partition. */
    boolean wasAssignedPartitions() {
        try {
            return Files.readString(log).contains("assigned [fairpix.jobs.");
        } catch (IOException e) {
            return false;
        }
    }

    /** The worker's HTTP port, from its start-up log line; -1 before it logged it. */
    int httpPort() {
        try {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("HTTP on port (\\d+)").matcher(Files.readString(log));
            return m.find() ? Integer.parseInt(m.group(1)) : -1;
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * The sum of every sample of a metric family on the worker's /metrics whose labels contain
     * {@code labelMatch} (e.g. {@code tenant="t1"}); 0 when none.
     */
    double metric(String name, String labelMatch) throws IOException, InterruptedException {
        int port = httpPort();
        if (port < 0) throw new IllegalStateException("worker has no HTTP port yet:\n" + logTail());
        String body = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        double sum = 0;
        for (String line : body.split("\n")) {
            if (line.startsWith(name + "{") && line.contains(labelMatch) || line.startsWith(name + " ") && labelMatch.isEmpty()) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    String logTail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) kill();
    }
}
