package com.fairpix.worker.process;

import nu.pattern.OpenCV;

/**
 * Loads OpenCV's native library once per JVM (JNI allows one load per class loader) and turns off
 * OpenCV's own worker threads: the worker already runs about one job per core, and nested parallelism
 * (OpenCV's parallel_for inside every resize/cvtColor) would oversubscribe the cores.
 */
public final class OpenCv {
    private static volatile boolean loaded;

    private OpenCv() {}

    public static void ensureLoaded() {
        if (loaded) return;
        synchronized (OpenCv.class) {
            if (!loaded) {
                OpenCV.loadLocally();
                org.opencv.core.Core.setNumThreads(1);
                loaded = true;
            }
        }
    }
}
