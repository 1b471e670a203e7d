package com.fairpix.worker.process;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import nu.pattern.OpenCV;

/**
 * Loads OpenCV's native library once per JVM (JNI allows one load per class loader) and turns off
 * OpenCV's own worker threads: the worker already runs about one job per core, and nested parallelism
 * (OpenCV's parallel_for inside every resize/cvtColor) would oversubscribe the cores.
 *
 * <p>The library (65 MB for linux-x86_64) is extracted once to
 * {@code <java.io.tmpdir>/fairpix-opencv-<name>-<size>/} and loaded from there by every later JVM.
 * {@code OpenCV.loadLocally()} extracts it to a fresh temporary directory on each start and leaves it
 * behind when the JVM is killed: 310 such directories (19 GB) had filled this machine's disk after a
 * day of test runs. Platforms whose library is not at the expected place in the jar fall back to
 * {@code loadLocally()}.
 */
public final class OpenCv {
    private static volatile boolean loaded;

    private OpenCv() {}

    public static void ensureLoaded() {
        if (loaded) return;
        synchronized (OpenCv.class) {
            if (!loaded) {
                // A processor is told where its worker extracted the library (its own /tmp is private).
                String given = System.getProperty(LIBRARY_PROPERTY);
                Path cached = given != null && Files.isRegularFile(Path.of(given)) ? Path.of(given) : extractOnce();
                if (cached != null) System.load(cached.toString());
                else OpenCV.loadLocally();
                org.opencv.core.Core.setNumThreads(1);
                loaded = true;
            }
        }
    }

    /** System property naming the extracted library to load (set by the worker for its processors). */
    public static final String LIBRARY_PROPERTY = "fairpix.opencv.library";

    /**
     * Extracts the library to its cache path without loading it (the worker does this for its
     * processors, which never write outside their own directory); null where this platform's
     * library is not in the jar (a processor then extracts its own).
     */
    public static Path extractLibrary() {
        return extractOnce();
    }

    /** The library extracted to its cache path (reused when already there with the right size), or null when this platform's is not in the jar. */
    static Path extractOnce() {
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) return null;
        // org.opencv.core.Core's VERSION and NATIVE_LIBRARY_NAME are native calls: not usable before the load.
        String resource = "/nu/pattern/opencv/linux/x86_64/" + LIBRARY;
        java.net.URL url = OpenCV.class.getResource(resource);
        if (url == null) return null;
        try {
            long size = url.openConnection().getContentLengthLong();
            if (size <= 0) return null;
            Path dir = Path.of(System.getProperty("java.io.tmpdir"), "fairpix-opencv-" + LIBRARY.replace(".so", "") + "-" + size);
            Path lib = dir.resolve(LIBRARY);
            if (Files.isRegularFile(lib) && Files.size(lib) == size) return lib;
            Files.createDirectories(dir);
            // Written beside and moved into place: a JVM killed mid-copy, or two starting at once, never leave a torn library.
            Path part = Files.createTempFile(dir, LIBRARY, ".part");
            try (InputStream in = url.openStream()) {
                Files.copy(in, part, StandardCopyOption.REPLACE_EXISTING);
                Files.move(part, lib, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(part);
            }
            return lib;
        } catch (IOException e) {
            return null;
        }
    }

    /** The library org.openpnp:opencv 4.9.0-0 ships for linux-x86_64 (another version: the fallback). */
    static final String LIBRARY = "libopencv_java490.so";
    /** {@link #LIBRARY}, for the worker that hands the extracted file to its processors. */
    public static final String LIBRARY_NAME = LIBRARY;
}
