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

    /**
     * The native codec libraries this worker runs, by name, with their versions: OpenCV and the
     * codecs built into it (its build information: {@code jpeg}, {@code png}, {@code webp},
     * {@code tiff}, {@code zlib}), and the system's libheif. Logged at start so that an operator can
     * tell which security fixes a worker carries (the bundled ones change only with the OpenCV build).
     */
    public static Map<String, String> versions() {
        OpenCv.ensureLoaded();
        Map<String, String> v = new LinkedHashMap<>();
        v.put("opencv", org.opencv.core.Core.VERSION);
        v.putAll(bundled(org.opencv.core.Core.getBuildInformation()));
        LibHeif.Support s = LibHeif.support();
        if (s.api() != null) v.put("libheif", s.version());
        return v;
    }

    /**
     * The codec lines of OpenCV's build information, e.g. {@code JPEG: build-libjpeg-turbo (ver
     * 3.1.2-70)} → {@code jpeg=libjpeg-turbo 3.1.2-70}; WebP by its encoder's version (OpenCV 4.13
     * lists decoder, encoder and demux); a codec taken from the system says so.
     */
    static Map<String, String> bundled(String buildInformation) {
        Map<String, String> v = new LinkedHashMap<>();
        java.util.regex.Pattern line = java.util.regex.Pattern.compile("^\\s*(JPEG|PNG|WEBP|TIFF|ZLib):\\s+(.+?)\\s*$");
        for (String l : buildInformation.split("\n")) {
            java.util.regex.Matcher m = line.matcher(l);
            if (!m.matches()) continue;
            String how = m.group(2);
            java.util.regex.Matcher ver = java.util.regex.Pattern.compile("\\(ver (?:[^)]*?encoder: )?([^,)]+)[,)]").matcher(how);
            String version = ver.find() ? ver.group(1).replaceFirst("^\\d+ - ", "") : how;
            String source = how.startsWith("build-") ? how.substring("build-".length(), how.indexOf(' ') < 0 ? how.length() : how.indexOf(' ')) + " "
                    : how.startsWith("build") ? "" : "system ";
            v.put(m.group(1).toLowerCase(java.util.Locale.ROOT), source + version);
        }
        return v;
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

    /** One line for the start-up log (a processor's hello carries it): formats, and {@link #versions}. */
    public static String summary() {
        LibHeif.Support s = LibHeif.support();
        return "reads " + String.join(", ", readable()) + "; writes " + String.join(", ", writable())
                + (s.api() != null ? "" : " (no HEIC/AVIF: " + s.problem() + ")") + "; native codecs " + versions();
    }
}
