package com.fairpix.worker.processor;

import com.fairpix.core.error.FairpixException;
import com.fairpix.core.error.Permanent;
import com.fairpix.core.error.RetryLater;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.Operation;
import com.fairpix.worker.process.Codecs;
import com.fairpix.worker.process.ImagePipeline;
import com.fairpix.worker.process.NativeMemoryBudget;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A processor process: loads the codecs, says what it reads and writes ({@code hello}), then runs
 * one job at a time from its stdin through {@link ImagePipeline} and answers each on its stdout
 * ({@link Frames}). It has no storage, queue or database access: the worker sends it the original
 * and the assets, and writes the results. Its log goes to stderr, which the worker logs with a
 * prefix. Started by the worker ({@link ProcessorProcesses}), never by hand:
 * {@code ProcessorMain <max-pixels> <job-timeout-ms> <native-memory-bytes> [<hand-over file> | -]}.
 */
public final class ProcessorMain {
    /**
     * Test hooks, off unless this system property is {@code true} (the worker passes it on from its
     * own property or {@code FAIRPIX_TEST_PROCESSOR_HOOKS}): an original containing one of the
     * markers below crashes the processor natively, hangs it, or makes it run out of heap.
     */
    public static final String HOOKS_PROPERTY = "fairpix.test.processor-hooks";
    public static final String CRASH_MARKER = "FAIRPIX-TEST-PROCESSOR-SEGV";
    public static final String HANG_MARKER = "FAIRPIX-TEST-PROCESSOR-HANG";
    public static final String OOM_MARKER = "FAIRPIX-TEST-PROCESSOR-OOM";
    /** Native memory (malloc through JNA, as a codec allocates) until an allocation fails; at most 64 GiB of address space. */
    public static final String NATIVE_OOM_MARKER = "FAIRPIX-TEST-PROCESSOR-MALLOC";
    /**
     * Followed by a port and a space: the processor tries to connect to 127.0.0.1 on that port and
     * fails the job ({@code test-probe}) with what it could reach and the names of its environment.
     */
    public static final String PROBE_MARKER = "FAIRPIX-TEST-PROCESSOR-PROBE:";
    /** Exit status after an out-of-memory error it reported (the JVM's own, -XX:+ExitOnOutOfMemoryError, is 3 too). */
    static final int EXIT_OUT_OF_MEMORY = 3;

    private ProcessorMain() {}

    private interface LibC extends Library {
        int dup(int fd);

        int dup2(int from, int to);
    }

    public static void main(String[] args) throws IOException {
        OutputStream protocol = protocolOut();
        long maxPixels = Long.parseLong(args[0]);
        Duration timeout = Duration.ofMillis(Long.parseLong(args[1]));
        long nativeMemory = Long.parseLong(args[2]);
        boolean hooks = Boolean.getBoolean(HOOKS_PROPERTY);
        // The worker writes each job's original there (a file of this processor's own), when it has one.
        java.io.RandomAccessFile handover = args.length > 3 && !args[3].equals("-") ? new java.io.RandomAccessFile(args[3], "r") : null;
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(protocol, 1 << 16));
        DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(FileDescriptor.in), 1 << 16));
        // One job at a time: the budget only refuses a job larger than the whole of it (it then runs alone).
        ImagePipeline pipeline = new ImagePipeline(maxPixels, new NativeMemoryBudget(nativeMemory), timeout, com.fairpix.core.time.SystemTime.nanos());
        // A processor's first job otherwise paid OpenCV's one-time set-up while its tenant waited.
        pipeline.warmUp().ifPresent(e -> System.err.println("processor: warm-up job failed: " + e));
        ObjectNode hello = Frames.header("hello").put("version", Frames.VERSION).put("pid", ProcessHandle.current().pid()).put("gpu", false);
        Codecs.readable().forEach(hello.putArray("read")::add);
        Codecs.writable().forEach(hello.putArray("write")::add);
        hello.put("codecs", Codecs.summary());
        Frames.write(out, hello, List.of());
        for (Frames.Frame frame; (frame = Frames.read(in)) != null; ) {
            if (!frame.type().equals("job")) throw new IOException("unexpected frame " + frame.type());
            frame = withOriginal(frame, handover);
            ObjectNode answer = run(pipeline, frame, hooks);
            Frames.write(out, answer, outputsOf(lastOutputs));
        }
        System.exit(0); // stdin closed: the worker is done with this processor
    }

    /** The hand-over file mapped (shared, read-only); null until the first job that uses it. */
    private static java.nio.MappedByteBuffer handoverMap;

    /**
     * The job frame with its original as its first part: read from the hand-over file when the header
     * says it is there ({@code original}: its length), else the frame is as it came.
     *
     * @throws IOException when the header names an original but this processor has no hand-over
     *                     file, or the file is shorter than the original
     */
    static Frames.Frame withOriginal(Frames.Frame job, java.io.RandomAccessFile handover) throws IOException {
        if (!job.header().has("original")) return job;
        long length = job.header().path("original").asLong(-1);
        if (handover == null || length < 0 || length > Frames.MAX_BLOB) throw new IOException("job frame's original (" + length + " bytes) has no hand-over file here");
        byte[] original = new byte[(int) length];
        if (handoverMap == null || handoverMap.capacity() < length) {
            // The worker grows the file before it writes past its end: mapped again as it is now.
            long size = handover.length();
            if (size < length) throw new IOException("hand-over file of " + size + " bytes for an original of " + length);
            handoverMap = handover.getChannel().map(java.nio.channels.FileChannel.MapMode.READ_ONLY, 0, size);
        }
        handoverMap.get(0, original);
        List<byte[]> blobs = new ArrayList<>(job.blobs().size() + 1);
        blobs.add(original);
        blobs.addAll(job.blobs());
        return new Frames.Frame(job.header(), blobs);
    }

    /** The last job's outputs, written as the result frame's parts (kept apart from the header). */
    private static Map<String, ImagePipeline.Output> lastOutputs = Map.of();

    private static List<byte[]> outputsOf(Map<String, ImagePipeline.Output> outputs) {
        List<byte[]> blobs = new ArrayList<>();
        outputs.values().forEach(o -> blobs.add(o.data()));
        return blobs;
    }

    /** Runs one job frame: the result header (its outputs in {@link #lastOutputs}) or an error header. */
    static ObjectNode run(ImagePipeline pipeline, Frames.Frame job, boolean hooks) {
        lastOutputs = Map.of();
        long cpuBefore = threadCpuNanos();
        try {
            JobSpec spec = spec(job.header().get("spec"));
            byte[] original = job.blobs().get(0);
            Map<String, byte[]> assets = new HashMap<>();
            ArrayNode keys = (ArrayNode) job.header().path("assets");
            for (int i = 0; i < keys.size(); i++) assets.put(keys.get(i).asText(), job.blobs().get(i + 1));
            if (hooks) testHooks(original);
            Map<String, ImagePipeline.Output> outputs = pipeline.process(original, spec, key -> {
                byte[] data = assets.get(key);
                if (data == null) throw new Permanent("asset-not-found", "asset " + key + " was not sent to the processor");
                return data;
            });
            ObjectNode result = Frames.header("result");
            // The CPU time of the thread that ran the job (OpenCV runs single-threaded on it), to the
            // nanosecond: the worker's /proc reading of the whole process counts in 10 ms ticks.
            long cpuAfter = threadCpuNanos();
            if (cpuBefore >= 0 && cpuAfter >= 0) result.put("cpuNanos", cpuAfter - cpuBefore);
            ArrayNode list = result.putArray("outputs");
            // The variant's encode step is the worker's own spec's: not sent back.
            for (Map.Entry<String, ImagePipeline.Output> e : outputs.entrySet()) {
                list.addObject().put("variant", e.getKey()).put("width", e.getValue().width()).put("height", e.getValue().height());
            }
            lastOutputs = outputs;
            return result;
        } catch (FairpixException e) {
            return Frames.header("error").put("kind", e instanceof RetryLater ? "retry-later" : "permanent").put("reason", e.reason())
                    .put("message", e.getMessage());
        } catch (OutOfMemoryError e) {
            // Its state may be broken: report, then let the worker start a fresh processor.
            System.err.println("processor out of memory: " + e);
            System.exit(EXIT_OUT_OF_MEMORY);
            throw e;
        } catch (InterruptedException e) {
            return Frames.header("error").put("kind", "retry-later").put("reason", "interrupted").put("message", e.toString());
        } catch (Throwable e) { // what the in-process pipeline would count as a failed attempt
            return Frames.header("error").put("kind", "error").put("reason", e.getClass().getSimpleName()).put("message", String.valueOf(e.getMessage()));
        }
    }

    /** Specs already parsed, by their JSON: a processor's specs repeat (a tenant's presets), and binding one cost ~0.3 ms at C1. */
    private static final Map<String, JobSpec> SPECS = new java.util.LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, JobSpec> eldest) {
            return size() > Processor.SPECS_KEPT;
        }
    };

    /** The job's spec, bound from its JSON (or the one bound before from equal JSON: a spec is immutable). */
    static JobSpec spec(com.fasterxml.jackson.databind.JsonNode json) throws IOException {
        if (json == null || !json.isObject()) throw new IOException("job frame without a spec");
        // By its text, not JsonNode equality: that ignores the order of an object's members, and the
        // variants' order is the outputs'.
        String text = json.toString();
        JobSpec spec = SPECS.get(text);
        if (spec == null) {
            spec = Frames.MAPPER.treeToValue(json, JobSpec.class);
            SPECS.put(text, spec);
        }
        return spec;
    }

    /**
     * CPU time of the calling thread, ns; -1 where the JVM cannot tell. (The process's, through
     * getProcessCpuTime, comes in 10 ms ticks on Linux, as /proc's does: measured 140000000 ns.)
     */
    private static long threadCpuNanos() {
        return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
    }

    /** Looked up once: ManagementFactory's look-up walks the platform components each time. */
    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    private static void testHooks(byte[] original) throws InterruptedException {
        String text = new String(original, StandardCharsets.ISO_8859_1);
        if (text.contains(CRASH_MARKER)) {
            System.err.println("test hook: writing to address 1 (SIGSEGV)");
            new com.sun.jna.Pointer(1).setInt(0, 42);
        }
        if (text.contains(HANG_MARKER)) {
            System.err.println("test hook: hanging");
            Thread.sleep(Long.MAX_VALUE);
        }
        int probe = text.indexOf(PROBE_MARKER);
        if (probe >= 0) {
            int from = probe + PROBE_MARKER.length();
            int port = Integer.parseInt(text.substring(from, text.indexOf(' ', from)));
            String connect;
            try (java.net.Socket s = new java.net.Socket()) {
                s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 2000);
                connect = "connected";
            } catch (IOException e) {
                connect = "refused: " + e;
            }
            ObjectNode report = Frames.header("probe").put("network", connect);
            System.getenv().keySet().stream().sorted().forEach(report.putArray("env")::add);
            // Files the test names after the port ("read=<path>;<path>"): what reading each one gave.
            int end = text.indexOf(' ', from);
            int read = text.indexOf("read=", end);
            if (read == end + 1) {
                ObjectNode files = report.putObject("read");
                for (String path : text.substring(read + 5, text.indexOf(' ', read)).split(";")) {
                    try {
                        files.put(path, "read " + java.nio.file.Files.readAllBytes(java.nio.file.Path.of(path)).length + " bytes");
                    } catch (IOException | RuntimeException e) {
                        files.put(path, "refused: " + e);
                    }
                }
            }
            try (var procs = java.nio.file.Files.list(java.nio.file.Path.of("/proc"))) {
                report.put("processesVisible", procs.filter(d -> d.getFileName().toString().chars().allMatch(Character::isDigit)).count());
            } catch (IOException e) {
                report.put("processesVisible", -1);
            }
            throw new Permanent("test-probe", report.toString());
        }
        if (text.contains(NATIVE_OOM_MARKER)) {
            System.err.println("test hook: allocating native memory until an allocation fails");
            List<com.sun.jna.Memory> hog = new ArrayList<>();
            for (int i = 0; i < 1024; i++) hog.add(new com.sun.jna.Memory(64L << 20)); // JNA throws OutOfMemoryError when malloc fails
            throw new Permanent("test-no-limit", "64 GiB of address space allocated without a failure: no limit");
        }
        if (text.contains(OOM_MARKER)) {
            System.err.println("test hook: allocating until out of memory");
            List<long[]> hog = new ArrayList<>();
            while (true) hog.add(new long[4 << 20]);
        }
    }

    /**
     * The stream the frames go out on: a duplicate of fd 1, with fd 1 itself then pointed at stderr,
     * so that nothing else (a native library's printf, a logger set to the console) can write into
     * the protocol. Without libc through JNA, only Java's System.out is redirected.
     */
    private static OutputStream protocolOut() throws IOException {
        try {
            LibC c = Native.load("c", LibC.class);
            int copy = c.dup(1);
            if (copy >= 0 && c.dup2(2, 1) >= 0) {
                System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
                return new FileOutputStream("/proc/self/fd/" + copy);
            }
        } catch (Throwable e) {
            System.err.println("processor: stdout not separated from the protocol natively: " + e);
        }
        PrintStream stdout = System.out;
        System.setOut(System.err);
        return stdout;
    }
}
