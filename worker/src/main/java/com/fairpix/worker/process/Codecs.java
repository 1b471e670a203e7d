package com.fairpix.worker.process;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The image formats this worker can read and write, from the codecs actually loaded: OpenCV
 * (JPEG, PNG, WebP, TIFF, BMP), the JDK (GIF) and libheif when present (HEIC, AVIF in; AVIF out).
 * Logged at start and served at {@code GET /health/formats}.
 */
public final class Codecs {
    private Codecs() {}

    /** Input format ids this worker decodes. */
    public static List<String> readable() {
        List<String> out = new ArrayList<>(List.of("jpeg", "png", "webp", "tiff", "bmp", "gif"));
        if (LibHeif.support().hevcIn()) out.add("heic");
        if (LibHeif.support().av1In()) out.add("avif");
        return out;
    }

    /** Output format ids this worker encodes. */
    public static List<String> writable() {
        List<String> out = new ArrayList<>(List.of("jpeg", "png", "webp"));
        if (LibHeif.support().av1Out()) out.add("avif");
        return out;
    }

    /** {"read": [...], "write": [...], "libheif": version or null, "problem": why HEIC/AVIF are missing, or null}. */
    public static Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("read", readable());
        m.put("write", writable());
        m.put("libheif", LibHeif.support().version());
        m.put("problem", LibHeif.support().problem());
        return m;
    }

    /** One line for the start-up log. */
    public static String summary() {
        LibHeif.Support s = LibHeif.support();
        return "reads " + String.join(", ", readable()) + "; writes " + String.join(", ", writable())
                + (s.api() != null ? " (libheif " + s.version() + ")" : " (no HEIC/AVIF: " + s.problem() + ")");
    }
}
