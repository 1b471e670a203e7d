package com.fairpix.worker.process;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads OpenCV's native library once per JVM (JNI allows one load per class loader) and turns off
 * OpenCV's own worker threads: the worker already runs about one job per core, and nested parallelism
 * (OpenCV's parallel_for inside every resize/cvtColor) would oversubscribe the cores.
 *
 * <p>The build is org.bytedeco's opencv 4.13.0-1.5.13 for linux-x86_64 (issue 35: libjpeg-turbo 3
 * with SIMD; docs/pipeline.md, "Choosing the OpenCV build"). Its jars carry the official
 * {@code org.opencv} Java API and its JNI library {@code libopencv_java.so}, which needs 28 of
 * OpenCV's module libraries and OpenBLAS ({@link #LIBRARIES}, 84 MB). JavaCPP's own loader is not
 * used: it extracts to {@code ~/.javacpp/cache}, which a sandboxed processor and the container's
 * read-only root cannot write, and it would also load JavaCPP's own bindings, which we do not call.
 *
 * <p>The libraries are extracted once to {@code <java.io.tmpdir>/fairpix-opencv-<version>/} and
 * loaded from there by every later JVM (a fresh directory per start had filled this machine's disk
 * with 19 GB after a day of tests). The libraries name each other by soname only, with no usable
 * search path, so each is loaded by its full path once its own dependencies are: the dynamic linker
 * then finds those by soname among the loaded ones.
 */
public final class OpenCv {
    private static volatile boolean loaded;

    private OpenCv() {}

    /**
     * Loads the libraries (from the directory {@link #LIBRARY_PROPERTY} names, else extracting them)
     * and sets OpenCV's thread count to 1.
     *
     * @throws UnsatisfiedLinkError where this platform's libraries are not in the jars (only
     *                              linux-x86_64 is shipped) or cannot be extracted or loaded
     */
    public static void ensureLoaded() {
        if (loaded) return;
        synchronized (OpenCv.class) {
            if (!loaded) {
                // A processor is told where its worker extracted the libraries (its own /tmp is private).
                String given = System.getProperty(LIBRARY_PROPERTY);
                Path lib = given != null && Files.isRegularFile(Path.of(given)) ? Path.of(given) : extractOnce();
                if (lib == null) {
                    throw new UnsatisfiedLinkError("OpenCV: no natives for " + System.getProperty("os.name") + "/" + System.getProperty("os.arch")
                            + " (only linux-x86_64 is shipped), or they could not be extracted under " + System.getProperty("java.io.tmpdir"));
                }
                loadAll(lib.getParent());
                org.opencv.core.Core.setNumThreads(1);
                loaded = true;
            }
        }
    }

    /** System property naming the extracted {@link #LIBRARY_NAME} (its dependencies beside it), set by the worker for its processors. */
    public static final String LIBRARY_PROPERTY = "fairpix.opencv.library";

    /**
     * Extracts the libraries to their cache directory without loading them (the worker does this for
     * its processors, which never write outside their own directory).
     *
     * @return the extracted {@link #LIBRARY_NAME}, its dependencies beside it; null where this
     *         platform's libraries are not in the jars or cannot be written
     */
    public static Path extractLibrary() {
        return extractOnce();
    }

    /** Loads every library in {@code dir}, each after its dependencies. */
    private static void loadAll(Path dir) {
        List<String> left = LIBRARIES.stream().map(r -> r.substring(r.lastIndexOf('/') + 1)).toList();
        // LIBRARIES is in dependency order for this build; should another build need another order, a
        // library whose dependencies are not loaded yet fails without side effects and is tried again.
        while (!left.isEmpty()) {
            List<String> failed = new ArrayList<>();
            UnsatisfiedLinkError last = null;
            for (String name : left) {
                try {
                    System.load(dir.resolve(name).toString());
                } catch (UnsatisfiedLinkError e) {
                    failed.add(name);
                    last = e;
                }
            }
            if (failed.size() == left.size()) throw last;
            left = failed;
        }
    }

    /** The libraries extracted to their cache directory (reused when already there with the right sizes), or null. */
    static Path extractOnce() {
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) return null;
        try {
            Path dir = Path.of(System.getProperty("java.io.tmpdir"), "fairpix-opencv-" + VERSION);
            Files.createDirectories(dir);
            for (String resource : LIBRARIES) {
                URL url = OpenCv.class.getResource(resource);
                if (url == null) return null;
                long size = url.openConnection().getContentLengthLong();
                if (size <= 0) return null;
                Path lib = dir.resolve(resource.substring(resource.lastIndexOf('/') + 1));
                if (Files.isRegularFile(lib) && Files.size(lib) == size) continue;
                // Written beside and moved into place: a JVM killed mid-copy, or two starting at once, never leave a torn library.
                Path part = Files.createTempFile(dir, lib.getFileName().toString(), ".part");
                try (InputStream in = url.openStream()) {
                    Files.copy(in, part, StandardCopyOption.REPLACE_EXISTING);
                    Files.move(part, lib, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } finally {
                    Files.deleteIfExists(part);
                }
            }
            return dir.resolve(LIBRARY_NAME);
        } catch (IOException e) {
            return null;
        }
    }

    /** The org.bytedeco build (its Maven version), which names the cache directory. */
    static final String VERSION = "4.13.0-1.5.13";
    /** OpenCV's JNI library, the one the {@code org.opencv} classes call. */
    public static final String LIBRARY_NAME = "libopencv_java.so";

    private static final String OPENCV = "/org/bytedeco/opencv/linux-x86_64/";
    private static final String OPENBLAS = "/org/bytedeco/openblas/linux-x86_64/";

    /**
     * {@link #LIBRARY_NAME} and what it needs, transitively, outside the system's libraries (its
     * ELF NEEDED entries): OpenCV's modules, OpenBLAS (which libopencv_core links for its LAPACK
     * calls) and OpenBLAS's Fortran runtime. In dependency order (a library after those it needs).
     */
    static final List<String> LIBRARIES = List.of(
            OPENBLAS + "libquadmath.so.0", OPENBLAS + "libgfortran.so.5", OPENBLAS + "libopenblas.so.0",
            OPENCV + "libopencv_core.so.413", OPENCV + "libopencv_imgproc.so.413", OPENCV + "libopencv_imgcodecs.so.413",
            OPENCV + "libopencv_flann.so.413", OPENCV + "libopencv_features2d.so.413", OPENCV + "libopencv_calib3d.so.413",
            OPENCV + "libopencv_dnn.so.413", OPENCV + "libopencv_video.so.413", OPENCV + "libopencv_videoio.so.413",
            OPENCV + "libopencv_plot.so.413", OPENCV + "libopencv_objdetect.so.413", OPENCV + "libopencv_photo.so.413",
            OPENCV + "libopencv_ml.so.413", OPENCV + "libopencv_phase_unwrapping.so.413", OPENCV + "libopencv_tracking.so.413",
            OPENCV + "libopencv_face.so.413", OPENCV + "libopencv_bioinspired.so.413", OPENCV + "libopencv_bgsegm.so.413",
            OPENCV + "libopencv_aruco.so.413", OPENCV + "libopencv_ximgproc.so.413", OPENCV + "libopencv_xfeatures2d.so.413",
            OPENCV + "libopencv_wechat_qrcode.so.413", OPENCV + "libopencv_structured_light.so.413", OPENCV + "libopencv_text.so.413",
            OPENCV + "libopencv_saliency.so.413", OPENCV + "libopencv_img_hash.so.413", OPENCV + "libopencv_dnn_superres.so.413",
            OPENCV + "libopencv_xphoto.so.413", OPENCV + LIBRARY_NAME);
}
