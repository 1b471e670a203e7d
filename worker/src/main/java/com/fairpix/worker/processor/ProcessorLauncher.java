package com.fairpix.worker.processor;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a processor's command line and environment: the worker's own {@code java} and class path,
 * a small JVM (C1 only, serial GC, the heap {@code -Xmx}), at the calling thread's nice value
 * ({@code nice}), inside bubblewrap when it works here (no network, a private /tmp, the rest of the
 * file system read-only), with an environment holding nothing but what a JVM needs (no
 * {@code FAIRPIX_*}, no {@code AWS_*}: no credentials). The address-space limit is set once the
 * processor has started ({@link #limitAddressSpace}). docs/processors.md.
 */
final class ProcessorLauncher {
    private static final Logger log = LoggerFactory.getLogger(ProcessorLauncher.class);
    /** Variables a processor keeps from the worker's environment. */
    static final List<String> KEPT_ENV = List.of("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "LD_LIBRARY_PATH", "OPENCV_IO_MAX_IMAGE_PIXELS");
    /** System property: JVM options (space-separated) a processor gets after, so overriding, its own; for measurements. */
    static final String JVM_OPTIONS_PROPERTY = "fairpix.processor.jvm-options";
    private static volatile Boolean sandboxWorks;
    /** Where a sandboxed processor sees its hand-over file. */
    static final String SANDBOXED_ORIGINAL = "/fairpix-original";
    private static volatile boolean noPrlimitLogged;

    private final Settings settings;
    private final Path dir;
    private final Path opencv;
    private final Path cds;

    /**
     * @param heapMb     the processor's -Xmx
     * @param memoryMb   address space it may add to what it holds once started (RLIMIT_AS), MiB; 0 = none
     * @param sandbox    run under bubblewrap when it works here
     * @param testHooks  pass the test hooks' switch on ({@link ProcessorMain#HOOKS_PROPERTY})
     * @param cds        use (and once create) a class-data-sharing archive of the processor's classes
     */
    record Settings(long maxPixels, long jobTimeoutMillis, long nativeMemoryBytes, int heapMb, int memoryMb, boolean sandbox,
                    boolean testHooks, boolean cds) {}

    /**
     * @param dir    the processors' own directory (their working directory; unsandboxed, their tmp)
     * @param opencv OpenCV's native library, extracted by the worker; null to let each processor extract its own
     * @param cds    the directory of the class-data-sharing archive; null for none
     */
    ProcessorLauncher(Settings settings, Path dir, Path opencv, Path cds) {
        this.settings = settings;
        this.dir = dir;
        this.opencv = opencv;
        this.cds = cds;
    }

    Settings settings() {
        return settings;
    }

    /** True when this processor will run in bubblewrap. */
    boolean sandboxed() {
        return settings.sandbox() && sandboxWorks();
    }

    /**
     * @param nice     how much nicer than the thread that starts it the processor runs ({@code nice -n}: it adds to the starter's)
     * @param cdsFlags the class-data-sharing flags for this start (empty for none)
     * @param original the processor's hand-over file (the worker writes each job's original there), bound
     *                 read-only into its sandbox; null: originals come inline in the job frame
     */
    ProcessBuilder command(int nice, List<String> cdsFlags, Path original) {
        List<String> cmd = new ArrayList<>();
        if (nice > 0 && which("nice").isPresent()) cmd.addAll(List.of("nice", "-n", Integer.toString(nice)));
        boolean sandboxed = sandboxed();
        String tmp = sandboxed ? "/tmp" : dir.toString();
        if (sandboxed) {
            cmd.addAll(List.of("bwrap", "--unshare-net", "--unshare-user", "--unshare-ipc", "--die-with-parent", "--new-session"));
            if (ownPids()) cmd.add("--unshare-pid");
            // What a processor sees of the file system: the system's programs and libraries, the few
            // files of /etc the loader and the JVM read, its own code, and a private /tmp; not the
            // rest (/etc's secrets, home directories, a checkout's state, a mounted credentials file).
            // A private /proc (its own pid namespace) hides the worker's /proc/<pid>/environ.
            cmd.addAll(systemView());
            cmd.addAll(List.of("--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev"));
            for (String code : code()) cmd.addAll(List.of("--ro-bind", code, code));
            if (opencv != null) cmd.addAll(List.of("--ro-bind", opencv.toString(), opencv.toString()));
            if (cds != null) cmd.addAll(List.of("--bind", cds.toString(), cds.toString()));
            // Its own hand-over file (ProcessorProcesses.handover), read-only: no other processor's.
            if (original != null) cmd.addAll(List.of("--ro-bind", original.toString(), SANDBOXED_ORIGINAL));
            cmd.addAll(List.of("--chdir", "/tmp", "--"));
        }
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // C1 alone: a fully tiered processor measured 0-0.8 ms less CPU per thumbnail (within the noise)
        // but ~0.14 CPU-s more per start (docs/processors.md).
        cmd.addAll(List.of("-Xmx" + settings.heapMb() + "m", "-Xss1m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
                "-XX:+ExitOnOutOfMemoryError", "-XX:-CreateCoredumpOnCrash", "-XX:ErrorFile=" + tmp + "/hs_err_pid%p.log",
                // The JVM's own log goes to stdout by default: on stderr, it cannot corrupt the protocol.
                // (A dynamic CDS archive always reports a mismatch on --enable-native-access, harmlessly: cds is quiet.)
                "-Xlog:disable", "-Xlog:all=warning,cds=off,aot=off:stderr",
                "--enable-native-access=ALL-UNNAMED", "-Djava.io.tmpdir=" + tmp, "-Djna.tmpdir=" + tmp));
        cmd.addAll(cdsFlags);
        // For measurements (docs/processors.md): JVM options added after, so overriding, the ones above.
        String extra = System.getProperty(JVM_OPTIONS_PROPERTY, "").trim();
        if (!extra.isEmpty()) cmd.addAll(List.of(extra.split("\\s+")));
        if (opencv != null) cmd.add("-D" + com.fairpix.worker.process.OpenCv.LIBRARY_PROPERTY + "=" + opencv.resolve(com.fairpix.worker.process.OpenCv.LIBRARY_NAME));
        if (settings.testHooks()) cmd.add("-D" + ProcessorMain.HOOKS_PROPERTY + "=true");
        cmd.addAll(List.of("-cp", classPath(), ProcessorMain.class.getName(),
                Long.toString(settings.maxPixels()), Long.toString(settings.jobTimeoutMillis()), Long.toString(settings.nativeMemoryBytes()),
                original == null ? "-" : sandboxed ? SANDBOXED_ORIGINAL : original.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        Map<String, String> env = pb.environment();
        Map<String, String> kept = new java.util.HashMap<>();
        for (String k : KEPT_ENV) if (System.getenv(k) != null) kept.put(k, System.getenv(k));
        env.clear();
        env.putAll(kept);
        env.putIfAbsent("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.putIfAbsent("OPENCV_IO_MAX_IMAGE_PIXELS", Long.toString(settings.maxPixels()));
        // OpenBLAS (which OpenCV 4.13's core links) starts a thread per core but one when it loads,
        // for nothing: OpenCV runs single-threaded here (OpenCv) and the image steps call no BLAS.
        env.put("OPENBLAS_NUM_THREADS", "1");
        // glibc reserves 64 MiB of address space per malloc arena: a few arenas, not one per core.
        env.put("MALLOC_ARENA_MAX", "2");
        return pb;
    }

    /**
     * Caps a started processor's address space (RLIMIT_AS) at what it holds now plus
     * {@code memoryMb}, with util-linux's prlimit: past it, allocations fail inside the processor.
     *
     * @return the limit set, bytes; -1 when none (no prlimit here, logged once; or memoryMb 0)
     */
    long limitAddressSpace(long pid) {
        if (settings.memoryMb() <= 0) return -1;
        if (which("prlimit").isEmpty()) {
            if (!noPrlimitLogged) {
                noPrlimitLogged = true;
                log.warn("processors run without an address-space limit: no prlimit (util-linux) on PATH");
            }
            return -1;
        }
        long now;
        try (ProcStats stats = new ProcStats(pid)) {
            now = stats.addressSpaceBytes();
        }
        if (now < 0) return -1;
        long limit = now + ((long) settings.memoryMb() << 20);
        try {
            Process p = new ProcessBuilder("prlimit", "--pid", Long.toString(pid), "--as=" + limit + ":" + limit).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            if (p.waitFor() != 0) {
                log.warn("processor {} runs without an address-space limit: prlimit said {}", pid, out);
                return -1;
            }
            return limit;
        } catch (IOException e) {
            log.warn("processor {} runs without an address-space limit: {}", pid, e.toString());
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** The system directories (bound read-only, or recreated as the symlinks they are on a merged-/usr system) and the files of /etc a processor needs. */
    static List<String> systemView() {
        List<String> args = new ArrayList<>();
        for (String d : List.of("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")) {
            Path p = Path.of(d);
            try {
                if (Files.isSymbolicLink(p)) args.addAll(List.of("--symlink", Files.readSymbolicLink(p).toString(), d));
                else if (Files.isDirectory(p)) args.addAll(List.of("--ro-bind", d, d));
            } catch (IOException e) {
                log.debug("{} left out of the processors' view: {}", d, e.toString());
            }
        }
        for (String f : ETC_FILES) args.addAll(List.of("--ro-bind-try", f, f));
        return args;
    }

    /** What the dynamic loader and the JVM read in /etc (no secrets: the user database is names and ids). */
    static final List<String> ETC_FILES = List.of("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
            "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime", "/etc/timezone");

    /**
     * Where the processor's code is, bound read-only into its view: the JDK, the class path's entries
     * and the entries of its jars' manifest Class-Path (a test runner's booter jar names the real
     * class path there), absolute.
     */
    static List<String> code() {
        List<Path> code = new ArrayList<>();
        code.add(Path.of(System.getProperty("java.home")));
        for (String e : classPath().split(File.pathSeparator)) {
            Path p = Path.of(e);
            code.add(p);
            if (!Files.isRegularFile(p)) continue;
            try (java.util.jar.JarFile jar = new java.util.jar.JarFile(p.toFile())) {
                java.util.jar.Manifest m = jar.getManifest();
                String cp = m == null ? null : m.getMainAttributes().getValue(java.util.jar.Attributes.Name.CLASS_PATH);
                if (cp == null) continue;
                for (String u : cp.trim().split("\\s+")) {
                    java.net.URI uri = p.toAbsolutePath().getParent().toUri().resolve(u);
                    if ("file".equals(uri.getScheme())) code.add(Path.of(uri));
                }
            } catch (IOException | IllegalArgumentException ex) {
                log.debug("class path entry {} not read: {}", p, ex.toString());
            }
        }
        return code.stream().map(c -> c.toAbsolutePath().normalize()).filter(Files::exists)
                .map(Path::toString).distinct().toList();
    }

    /**
     * The processors' class path, every entry absolute (a processor runs in its own directory): the
     * worker's, except that where this code itself comes from a jar, folders are left out, and a
     * jar that is only a manifest (a test runner's booter jar) is replaced by the entries its
     * Class-Path names. A processor needs the worker's code and its libraries, which are then all
     * jars: the folders (an application's or a test's own classes, as under Maven) hold nothing it
     * uses, and a class path of jars only can be class-data shared ({@link ClassData}), which halves
     * a processor's start. Where this code comes from a folder (the worker module's own tests) the
     * worker's class path is kept whole.
     */
    static String classPath() {
        String cp = classPath;
        if (cp == null) classPath = cp = processorClassPath();
        return cp;
    }

    private static volatile String classPath;

    private static String processorClassPath() {
        String own = System.getProperty("java.class.path");
        List<Path> entries = new ArrayList<>();
        for (String e : own.split(File.pathSeparator)) if (!e.isEmpty()) entries.add(Path.of(e).toAbsolutePath().normalize());
        if (fromJar()) {
            List<Path> jars = new ArrayList<>();
            for (Path p : entries) {
                if (Files.isDirectory(p)) continue;
                List<Path> named = manifestOnly(p);
                if (named == null) jars.add(p);
                else named.stream().filter(n -> !Files.isDirectory(n)).forEach(jars::add);
            }
            entries = jars;
        }
        return entries.stream().map(Path::toString).distinct().collect(java.util.stream.Collectors.joining(File.pathSeparator));
    }

    /** True when ProcessorMain was loaded from a jar file. */
    private static boolean fromJar() {
        try {
            java.security.CodeSource cs = ProcessorMain.class.getProtectionDomain().getCodeSource();
            return cs != null && cs.getLocation() != null && Files.isRegularFile(Path.of(cs.getLocation().toURI()));
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return false;
        }
    }

    /** The entries a jar's manifest Class-Path names when the jar holds no classes of its own (a test runner's booter jar); else null. */
    static List<Path> manifestOnly(Path jar) {
        if (!Files.isRegularFile(jar)) return null;
        try (java.util.jar.JarFile j = new java.util.jar.JarFile(jar.toFile())) {
            java.util.jar.Manifest m = j.getManifest();
            String cp = m == null ? null : m.getMainAttributes().getValue(java.util.jar.Attributes.Name.CLASS_PATH);
            if (cp == null || j.stream().anyMatch(e -> e.getName().endsWith(".class"))) return null;
            List<Path> out = new ArrayList<>();
            for (String u : cp.trim().split("\\s+")) {
                java.net.URI uri = jar.getParent().toUri().resolve(u);
                if ("file".equals(uri.getScheme())) out.add(Path.of(uri).toAbsolutePath().normalize());
            }
            return out;
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }

    /** Whether bubblewrap runs here with user and network namespaces and the processors' view of the file system (tried once; logged once). */
    static boolean sandboxWorks() {
        probeSandbox();
        return sandboxWorks;
    }

    /**
     * Whether the sandbox also has its own pid namespace and /proc (hiding the worker's
     * /proc/&lt;pid&gt;/environ). Inside a container whose /proc has masked paths (Docker's default)
     * the kernel refuses a new /proc mount to an unprivileged user namespace; the sandbox then runs
     * without one, and the worker says so.
     */
    static boolean ownPids() {
        probeSandbox();
        return ownPids;
    }

    private static volatile Boolean ownPids;

    private static void probeSandbox() {
        if (sandboxWorks != null) return;
        synchronized (ProcessorLauncher.class) {
            if (sandboxWorks != null) return;
            String why = null;
            boolean pids = false;
            if (which("bwrap").isEmpty()) {
                why = "no bwrap on PATH (Debian: apt-get install bubblewrap)";
            } else {
                try {
                    String withPids = tryBwrap(true);
                    pids = withPids == null;
                    if (!pids) {
                        why = tryBwrap(false);
                        if (why == null) {
                            log.warn("processors run in bubblewrap without a pid namespace of their own ({}): they cannot reach the network nor read the worker's files, "
                                    + "but can read its environment through /proc/<pid>/environ (in Docker, --security-opt systempaths=unconfined lets them have their own)", withPids);
                        }
                    }
                } catch (IOException e) {
                    why = "bwrap does not start: " + e;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    why = "interrupted while trying bwrap";
                }
            }
            if (why != null) {
                log.warn("processors run unsandboxed (they can reach the network and read what the worker's user can): {}", why);
            } else if (pids) {
                log.info("processors run in bubblewrap: no network, their own pids and /tmp, of the file system only the system's libraries and their code, read-only");
            }
            ownPids = pids;
            sandboxWorks = why == null;
        }
    }

    /** Runs {@code true} in the processors' sandbox, with or without a pid namespace: null when it works, else why not. */
    private static String tryBwrap(boolean pids) throws IOException, InterruptedException {
        List<String> probe = new ArrayList<>(List.of("bwrap", "--unshare-net", "--unshare-user"));
        if (pids) probe.add("--unshare-pid");
        probe.addAll(systemView());
        probe.addAll(List.of("--proc", "/proc", "--dev", "/dev", "true"));
        Process p = new ProcessBuilder(probe).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        if (p.waitFor() == 0) return null;
        return "bwrap cannot make user and network namespaces" + (pids ? " and a pid namespace" : "") + " here: " + out;
    }

    /** The program's path on PATH, if any. */
    static Optional<Path> which(String program) {
        String path = System.getenv("PATH");
        if (path == null) path = "/usr/local/bin:/usr/bin:/bin";
        for (String d : path.split(File.pathSeparator)) {
            Path p = Path.of(d.isEmpty() ? "." : d, program);
            if (Files.isExecutable(p)) return Optional.of(p);
        }
        return Optional.empty();
    }
}
