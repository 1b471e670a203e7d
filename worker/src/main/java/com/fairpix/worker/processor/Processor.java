package com.fairpix.worker.processor;

import com.fairpix.core.error.Permanent;
import com.fairpix.core.error.RetryLater;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.Operation;
import com.fairpix.worker.process.ImagePipeline;
import com.fairpix.worker.process.ImageProcessor;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One processor process, as the worker sees it: started, greeted ({@code hello}), then given one job
 * at a time. A job either comes back (outputs, or an error the pipeline raised: the processor lives
 * on) or the processor dies on it ({@link Died}: a signal, the deadline's SIGKILL, out of memory),
 * and is not used again.
 */
final class Processor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Processor.class);
    /** How long a processor may take to start and say hello. */
    static final Duration HELLO_TIMEOUT = Duration.ofSeconds(60);
    /** stderr lines kept to tell why a processor died. */
    private static final int TAIL = 30;

    private final int number;
    private final Process process;
    private final int nice;
    private final DataOutputStream in;
    private final DataInputStream out;
    private final ArrayDeque<String> stderr = new ArrayDeque<>();
    private volatile ObjectNode hello;
    private volatile long pid;
    private volatile boolean killedAtDeadline;
    private Thread pump;
    /** Its /proc files, open from its hello to its exit. */
    private volatile ProcStats stats;
    /** Specs already sent, as the job header's tree: serialised once per distinct spec, not per job. */
    private final Map<SpecKey, JsonNode> specTrees = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<SpecKey, JsonNode> eldest) {
            return size() > SPECS_KEPT;
        }
    };

    /** A spec and the order of its variants (which its equality leaves out, and its outputs follow). */
    private record SpecKey(JobSpec spec, List<String> variants) {
        SpecKey(JobSpec spec) {
            this(spec, List.copyOf(spec.variants().keySet()));
        }
    }
    /** Its hand-over file for originals, open for writing; null: they go inline in the job frame. */
    private RandomAccessFile handover;
    /** The hand-over file mapped (shared), its whole length; null until the first job. */
    private java.nio.MappedByteBuffer handoverMap;
    /** A hand-over file is cut back to its job's original when it holds more than this (a large original's pages are memory on tmpfs). */
    static final long HANDOVER_KEPT = 4L << 20;

    /** Distinct specs whose JSON a processor (and the worker, per processor) keeps. */
    static final int SPECS_KEPT = 64;

    /** The processor died on a job: {@code reason} is decoder-crashed, timeout or out-of-memory. */
    static final class Died extends Exception {
        final String reason;

        Died(String reason, String message) {
            super(message);
            this.reason = reason;
        }
    }

    private Processor(int number, Process process, int nice) {
        this.number = number;
        this.process = process;
        this.nice = nice;
        this.pid = process.pid();
        this.in = new DataOutputStream(new BufferedOutputStream(process.getOutputStream(), 1 << 16));
        this.out = new DataInputStream(new BufferedInputStream(process.getInputStream(), 1 << 16));
    }

    /**
     * Starts a processor and waits for its hello.
     *
     * @throws RetryLater {@code processor-start} when it cannot be started or does not say hello
     */
    static Processor start(int number, ProcessorLauncher launcher, int nice, List<String> cdsFlags, ScheduledExecutorService timers) {
        return start(number, launcher, nice, cdsFlags, timers, null);
    }

    /**
     * @param original its hand-over file, made empty by the caller (deleted when the processor exits); null for none
     */
    static Processor start(int number, ProcessorLauncher launcher, int nice, List<String> cdsFlags, ScheduledExecutorService timers, Path original) {
        RandomAccessFile handover = null;
        if (original != null) {
            try {
                handover = new RandomAccessFile(original.toFile(), "rw");
            } catch (IOException e) {
                log.warn("processor {}: originals go through its stdin: {}", number, e.toString());
                original = null;
            }
        }
        Process process;
        try {
            // Started from the timers' one long-lived thread, not the calling processing thread: bubblewrap's
            // --die-with-parent (PR_SET_PDEATHSIG) fires when the thread that started it ends, and a
            // processing thread may be replaced while its processor lives on in the pool.
            ProcessBuilder command = launcher.command(nice, cdsFlags, original);
            process = timers.submit(command::start).get();
        } catch (java.util.concurrent.ExecutionException e) {
            closeHandover(handover, original);
            throw new RetryLater(RetryLater.Kind.CAPACITY, "processor-start", "cannot start a processor: " + e.getCause(), 0, e.getCause());
        } catch (InterruptedException e) {
            closeHandover(handover, original);
            Thread.currentThread().interrupt();
            throw new RetryLater(RetryLater.Kind.CAPACITY, "interrupted", "interrupted while starting a processor", 0, e);
        }
        Processor p = new Processor(number, process, nice);
        p.handover = handover;
        RandomAccessFile opened = handover;
        Path file = original;
        process.onExit().thenRun(() -> closeHandover(opened, file));
        p.pumpStderr();
        ScheduledFuture<?> kill = timers.schedule(process::destroyForcibly, HELLO_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        try {
            Frames.Frame hello = Frames.read(p.out);
            if (hello == null || !hello.type().equals("hello")) throw new IOException("no hello");
            if (hello.header().path("version").asInt() != Frames.VERSION) throw new IOException("protocol version " + hello.header().path("version"));
            // The JVM's pid: in a sandbox the process started is bubblewrap, the JVM its descendant.
            p.pid = hostPid(process, hello.header().path("pid").asLong(process.pid()));
            p.hello = hello.header();
            ProcStats stats = new ProcStats(p.pid);
            p.stats = stats;
            process.onExit().thenRun(stats::close);
            return p;
        } catch (IOException e) {
            process.destroyForcibly();
            try {
                process.waitFor(2, TimeUnit.SECONDS);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
            throw new RetryLater(RetryLater.Kind.CAPACITY, "processor-start", "processor did not start (" + e.getMessage() + "): " + p.tail(), 0, e);
        } finally {
            kill.cancel(false);
        }
    }

    private void pumpStderr() {
        pump = Thread.ofPlatform().daemon().name("fairpix-processor-" + number + "-stderr").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (stderr) {
                        if (stderr.size() == TAIL) stderr.removeFirst();
                        stderr.addLast(line);
                    }
                    log.info("processor {} (pid {}): {}", number, pid, line);
                }
            } catch (IOException e) {
                // the processor is gone
            }
        });
    }

    /** What the processor declared it can do: read and write formats, gpu. */
    ObjectNode hello() {
        return hello;
    }

    /**
     * The processor JVM's pid as this worker's /proc sees it (its CPU, memory, address-space limit and
     * kill go by it): the descendant of the started process that runs java, or the started process
     * itself when it is the JVM. In a sandbox with its own pid namespace the pid the processor
     * reports ({@code reported}) is that namespace's, e.g. 2; it is the answer only where no process
     * can be found.
     */
    static long hostPid(Process process, long reported) {
        java.util.function.Predicate<ProcessHandle> java = h -> h.info().command().map(c -> c.endsWith("/java")).orElse(false);
        return process.descendants().filter(java).mapToLong(ProcessHandle::pid).findFirst()
                .orElse(java.test(process.toHandle()) ? process.pid() : reported);
    }

    long pid() {
        return pid;
    }

    int nice() {
        return nice;
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Runs {@code then} once the processor (its sandbox, when sandboxed) has exited, on a JDK thread. */
    void onExit(Runnable then) {
        process.onExit().thenRun(then);
    }

    /**
     * Runs one job, killing the processor (SIGKILL) when it runs past {@code deadline}.
     *
     * @throws Died                     the processor died on it (it must not be used again)
     * @throws com.fairpix.core.error.FairpixException what the pipeline threw for this input (the processor lives on)
     * @throws IllegalStateException    an unexpected error in the pipeline (a failed attempt, as in-process)
     */
    ImageProcessor.Processed run(String jobId, byte[] source, JobSpec spec, Map<String, byte[]> assets, Duration deadline,
                                 ScheduledExecutorService timers) throws Died {
        ProcStats stats = this.stats;
        stats.resetPeak();
        long cpuBefore = stats.cpuMillis();
        ObjectNode job = Frames.header("job").put("id", jobId);
        job.set("spec", specTrees.computeIfAbsent(new SpecKey(spec), k -> Frames.MAPPER.valueToTree(k.spec())));
        ArrayNode keys = job.putArray("assets");
        List<byte[]> blobs = new ArrayList<>();
        if (handOver(source)) job.put("original", source.length);
        else blobs.add(source);
        assets.forEach((k, v) -> {
            keys.add(k);
            blobs.add(v);
        });
        ScheduledFuture<?> kill = timers.schedule(() -> {
            killedAtDeadline = true;
            kill();
        }, deadline.toMillis(), TimeUnit.MILLISECONDS);
        Frames.Frame answer;
        try {
            Frames.write(in, job, blobs);
            answer = Frames.read(out);
            if (answer == null) throw new IOException("end of stream");
        } catch (IOException e) {
            throw died(jobId, deadline, e);
        } finally {
            kill.cancel(false);
        }
        if (killedAtDeadline) throw died(jobId, deadline, null);
        ObjectNode h = answer.header();
        if (answer.type().equals("error")) {
            String reason = h.path("reason").asText("error");
            String message = h.path("message").asText("");
            switch (h.path("kind").asText()) {
                case "permanent" -> throw new Permanent(reason, message);
                case "retry-later" -> throw new RetryLater(RetryLater.Kind.CAPACITY, reason, message, 0, null);
                default -> throw new IllegalStateException("processor: " + reason + ": " + message);
            }
        }
        if (!answer.type().equals("result")) throw new IllegalStateException("processor answered " + answer.type());
        Map<String, ImagePipeline.Output> outputs = new LinkedHashMap<>();
        int i = 0;
        for (JsonNode o : h.path("outputs")) {
            // The encode step is the variant's own, from the spec this worker sent (not read back).
            String variant = o.path("variant").asText();
            List<Operation> ops = spec.variants().get(variant);
            if (ops == null || i >= answer.blobs().size()) throw new IllegalStateException("processor's result names variant " + variant + " that the job's spec has not, or has no part for it");
            outputs.put(variant, new ImagePipeline.Output(answer.blobs().get(i++), JobSpec.encodeOf(ops), o.path("width").asInt(), o.path("height").asInt()));
        }
        long cpuAfter = stats.cpuMillis();
        long peak = stats.peakRssBytes();
        // The processor's own figure (its job thread's CPU) is exact to the ns but comes from the processor;
        // the kernel's (the whole process, GC and JIT included) comes in 10 ms ticks and is a floor the
        // processor cannot lower: the larger of the two is billed.
        long ticks = cpuBefore < 0 || cpuAfter < 0 ? -1 : cpuAfter - cpuBefore;
        long nanos = h.path("cpuNanos").asLong(-1);
        long reported = nanos < 0 ? -1 : (nanos + 999_999) / 1_000_000; // a job that used any CPU is billed at least 1 ms
        long cpu = Math.max(ticks, reported);
        JobRecord.Usage usage = cpu < 0 ? null : new JobRecord.Usage(cpu, Math.max(0, peak));
        return new ImageProcessor.Processed(outputs, usage);
    }

    /**
     * Writes the original into the processor's hand-over file (a tmpfs file of its own) instead of
     * its stdin: one copy into memory the processor reads at once, where the pipe took ~7 round trips
     * of 64 KiB between the two processes (measured ~0.3 ms of the worker's CPU and ~0.5 ms of the
     * processor's per 400 KB original). False when there is no such file or the write failed (a
     * full /dev/shm): the original then goes inline.
     */
    private boolean handOver(byte[] source) {
        if (handover == null) return false;
        try {
            java.nio.MappedByteBuffer map = handoverMap;
            boolean shrink = map != null && map.capacity() > HANDOVER_KEPT && source.length <= HANDOVER_KEPT;
            if (map == null || map.capacity() < source.length || shrink) {
                // Grown (or, after a large original, cut back) to a whole number of MiB; the old
                // mapping is left to the GC and never touched again.
                long size = Math.max(1L << 20, (source.length + (1L << 20) - 1) & -(1L << 20));
                handoverMap = null;
                handover.setLength(size);
                map = handover.getChannel().map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, size);
                handoverMap = map;
            }
            map.put(0, source); // a copy into pages the processor has mapped too: no system call
            return true;
        } catch (IOException | RuntimeException | InternalError e) { // a full tmpfs: SIGBUS on the copy, which the JVM reports as an InternalError
            log.warn("processor {} (pid {}): original not written to its hand-over file ({}); sent inline", number, pid, e.toString());
            handoverMap = null;
            try {
                handover.setLength(0);
            } catch (IOException ignored) {
                // the next job tries again
            }
            return false;
        }
    }

    private static void closeHandover(RandomAccessFile handover, Path file) {
        try {
            if (handover != null) handover.close();
            if (file != null) java.nio.file.Files.deleteIfExists(file);
        } catch (IOException e) {
            log.debug("hand-over file {} left: {}", file, e.toString());
        }
    }

    /** Waits for the dead processor's exit and says why it died. */
    private Died died(String jobId, Duration deadline, IOException e) {
        Integer exit = null;
        try {
            if (process.waitFor(5, TimeUnit.SECONDS)) exit = process.exitValue();
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
        if (exit == null) kill();
        try {
            pump.join(1000); // its last words tell an out-of-memory exit from a crash
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
        Died died = classify(exit, killedAtDeadline, tail(), deadline);
        log.warn("processor {} (pid {}) died on job {}: {}{}", number, pid, jobId, died.getMessage(), e == null ? "" : " (" + e.getMessage() + ")");
        return died;
    }

    /**
     * Why a processor died, from how it ended.
     *
     * @param exit             its exit status (128 + n: killed by signal n); null when it did not exit
     * @param killedAtDeadline the worker killed it at the job's deadline
     * @param tail             its last lines on stderr
     */
    static Died classify(Integer exit, boolean killedAtDeadline, String tail, Duration deadline) {
        String how = exit == null ? "did not exit" : exit > 128 ? "was killed by signal " + signalName(exit - 128) : "exited with status " + exit;
        // A JVM that catches a fatal signal in native code reports it and exits with status 1 (no core dump).
        java.util.regex.Matcher fatal = FATAL.matcher(tail);
        if (tail.contains("A fatal error has been detected") && fatal.find()) how = "crashed with " + fatal.group(1) + " (signal)";
        if (killedAtDeadline) {
            return new Died("timeout", "the image processor ran past its deadline (worker.job-timeout-seconds + "
                    + ProcessorProcesses.KILL_GRACE.toSeconds() + " s, " + deadline.toSeconds() + " s) and was killed on this input");
        }
        // A SIGKILL the worker did not send: the kernel's OOM killer (or a cgroup's) sends those.
        boolean memory = exit != null && (exit == ProcessorMain.EXIT_OUT_OF_MEMORY || exit == 128 + 9)
                || MEMORY_WORDS.stream().anyMatch(tail::contains);
        return new Died(memory ? "out-of-memory" : "decoder-crashed", "the image processor " + how + " on this input");
    }

    private static final java.util.regex.Pattern FATAL = java.util.regex.Pattern.compile("#\\s+(SIG[A-Z]+) \\(0x[0-9a-f]+\\)");
    /** What a JVM, glibc or C++ print when memory runs out. */
    private static final List<String> MEMORY_WORDS = List.of("OutOfMemoryError", "insufficient memory", "Cannot allocate memory", "bad_alloc");

    private static String signalName(int signal) {
        return switch (signal) {
            case 4 -> "SIGILL";
            case 6 -> "SIGABRT";
            case 7 -> "SIGBUS";
            case 8 -> "SIGFPE";
            case 9 -> "SIGKILL";
            case 11 -> "SIGSEGV";
            case 15 -> "SIGTERM";
            default -> Integer.toString(signal);
        };
    }

    String tail() {
        synchronized (stderr) {
            return String.join("\n", stderr);
        }
    }

    /** SIGKILL to the processor (and to the sandbox around it). */
    void kill() {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /** Closes its stdin (it exits on its own, writing its class-data archive if it makes one); killed after {@code grace}. */
    void stop(Duration grace) {
        try {
            in.close();
        } catch (IOException e) {
            // already gone
        }
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) kill();
        } catch (InterruptedException e) {
            kill();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        kill();
    }
}
