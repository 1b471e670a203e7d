package com.fairpix.worker.process;

import nu.pattern.OpenCV;

/** Loads OpenCV's native library once per JVM (JNI allows one load per class loader). */
public final class OpenCv {
    private static volatile boolean loaded;

    private OpenCv() {}

    public static void ensureLoaded() {
        if (loaded) return;
        synchronized (OpenCv.class) {
            if (!loaded) {
                OpenCV.loadLocally();
                loaded = true;
            }
        }
    }
}
