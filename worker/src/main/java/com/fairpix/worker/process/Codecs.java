package com.fairpix.worker.process;

import com.fairpix.core.image.ImageFormat;
import java.util.Arrays;
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

    /** Input format ids this worker decodes: every {@link ImageFormat}, HEIC and AVIF only with libheif's decoders. */
    public static List<String> readable() {
        LibHeif.Support s = LibHeif.support();
        return Arrays.stream(ImageFormat.values())
                .filter(f -> switch (f) {
                    case HEIC -> s.hevcIn();
                    case AVIF -> s.av1In();
                    default -> true;
                })
                .map(ImageFormat::id).toList();
    }

    /** Output format ids this worker encodes: the writable {@link ImageFormat}s, AVIF only with libheif's encoder. */
    public static List<String> writable() {
        LibHeif.Support s = LibHeif.support();
        return Arrays.stream(ImageFormat.values()).filter(f -> f.writable() && (f != ImageFormat.AVIF || s.av1Out())).map(ImageFormat::id).toList();
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
