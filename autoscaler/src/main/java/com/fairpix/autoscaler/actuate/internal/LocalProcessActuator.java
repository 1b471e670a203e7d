package com.fairpix.autoscaler.actuate.internal;

import com.fairpix.autoscaler.actuate.Actuator;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs workers as {@code fairpix worker --pool X --port 0} processes of the packaged jar on this
 * machine. Scale-in stops the newest first with SIGTERM (the worker finishes its running jobs,
 * commits and leaves the group) and waits for it on a background thread; a worker still alive
 * after the grace period is killed. A worker that is stopping no longer counts as a replica.
 */
public final class LocalProcessActuator implements Actuator {
    private static final Logger log = LoggerFactory.getLogger(LocalProcessActuator.class);

    /**
     * How to start a worker.
     *
     * @param java      the java executable
     * @param jar       the runnable fairpix.jar (dependencies in lib/ beside it)
     * @param threads   processing threads per worker
     * @param logDir    where each worker's output goes
     * @param grace     how long a SIGTERM'd worker gets before SIGKILL (its own deadline is 30 s)
     * @param maxPixels {@code worker.max-pixels}: OpenCV's own pixel limit in each worker's environment
     */
    public record Options(String java, Path jar, int threads, Path logDir, Duration grace, long maxPixels) {}

    /** A worker process this actuator started. */
    private record Managed(Process process, Path log, Instant started) {}

    private final Options options;
    private final Map<String, List<Managed>> running = new ConcurrentHashMap<>();
    private final List<Process> stopping = new CopyOnWriteArrayList<>();
    private final Clock clock;
    private final LongSupplier nanos;

    /**
     * @param clock the wall clock: when each worker was started ({@link #details})
     * @param nanos monotonic clock, nanoseconds, that bounds {@link #close}'s wait
     * @throws IllegalArgumentException when {@code options.jar()} is not a file
     */
    public LocalProcessActuator(Options options, Clock clock, LongSupplier nanos) {
        if (!Files.isRegularFile(options.jar())) {
            throw new IllegalArgumentException("the local actuator needs the packaged jar, not found: " + options.jar() + " (build with mvn -DskipTests install)");
        }
        this.options = options;
        this.clock = clock;
        this.nanos = nanos;
    }

    @Override
    public String kind() { return "local"; }

    @Override
    public synchronized int replicas(String pool) {
        List<Managed> list = running.computeIfAbsent(pool, p -> new ArrayList<>());
        list.removeIf(m -> {
            if (m.process().isAlive()) return false;
            log.warn("worker pid {} of pool {} exited on its own with {}; log {}", m.process().pid(), pool, m.process().exitValue(), m.log());
            return true;
        });
        return list.size();
    }

    @Override
    public synchronized void scale(String pool, int replicas) {
        int now = replicas(pool);
        List<Managed> list = running.get(pool);
        for (int i = now; i < replicas; i++) list.add(start(pool));
        for (int i = now; i > replicas; i--) stop(pool, list.removeLast());
    }

    private Managed start(String pool) {
        try {
            Files.createDirectories(options.logDir());
            Path log = Files.createTempFile(options.logDir(), "worker-" + pool + "-", ".log");
            List<String> command = List.of(options.java(), "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-jar", options.jar().toString(),
                    "worker", "--pool", pool, "--port", "0", "--threads", Integer.toString(options.threads()));
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            // bin/fairpix sets this for OpenCV, which reads it once at load; a worker started here
            // skips bin/fairpix, so it gets the configured worker.max-pixels from its starter.
            pb.environment().putIfAbsent("OPENCV_IO_MAX_IMAGE_PIXELS", Long.toString(options.maxPixels()));
            Process p = pb.start();
            LocalProcessActuator.log.info("started worker pid {} for pool {} (log {})", p.pid(), pool, log);
            return new Managed(p, log, clock.instant());
        } catch (IOException e) {
            throw new ActuatorException("cannot start a worker for pool " + pool + ": " + e.getMessage(), e);
        }
    }

    private void stop(String pool, Managed m) {
        Process p = m.process();
        log.info("stopping worker pid {} of pool {} with SIGTERM", p.pid(), pool);
        stopping.add(p);
        p.destroy();
        Thread.ofVirtual().name("fairpix-stop-" + p.pid()).start(() -> {
            try {
                if (!p.waitFor(options.grace().toMillis(), TimeUnit.MILLISECONDS)) {
                    log.warn("worker pid {} did not stop within {}; killing it", p.pid(), options.grace());
                    p.destroyForcibly();
                    p.waitFor(10, TimeUnit.SECONDS);
                }
                log.info("worker pid {} of pool {} exited with {}", p.pid(), pool, p.isAlive() ? "?" : p.exitValue());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                stopping.remove(p);
            }
        });
    }

    /** Workers still shutting down (SIGTERM sent, not yet exited). */
    public int stoppingCount() {
        return (int) stopping.stream().filter(Process::isAlive).count();
    }

    @Override
    public synchronized List<Map<String, Object>> details(String pool) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Managed m : running.getOrDefault(pool, List.of())) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("pid", m.process().pid());
            d.put("state", m.process().isAlive() ? "running" : "exited");
            d.put("startedAt", m.started().toString());
            d.put("log", m.log().toString());
            out.add(d);
        }
        return out;
    }

    /** Stops every worker it started and waits for them (SIGTERM, then SIGKILL after the grace period). */
    @Override
    public synchronized void close() {
        for (String pool : running.keySet()) {
            List<Managed> list = running.get(pool);
            while (!list.isEmpty()) stop(pool, list.removeLast());
        }
        long until = nanos.getAsLong() + options.grace().toNanos() + TimeUnit.SECONDS.toNanos(10);
        while (stoppingCount() > 0 && nanos.getAsLong() < until) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** This JVM's java executable. */
    public static String currentJava() {
        return ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    }
}
