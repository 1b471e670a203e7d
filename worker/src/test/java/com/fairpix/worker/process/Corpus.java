package com.fairpix.worker.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.opencv.core.Core;
import org.opencv.core.Mat;
import org.opencv.core.Scalar;

/**
 * Every MANIFEST row of every suite of the shared corpus (found by {@link com.fairpix.core.Corpus}:
 * {@code shared/corpus} above the working directory, or {@code -Dfairpix.corpus=DIR}), and the
 * pixel comparison the corpus and golden tests use. Unlike {@code Corpus.manifest}, a row whose
 * file is missing is kept, so that it fails rather than silently shrinking the test.
 */
final class Corpus {
    private Corpus() {}

    /** One MANIFEST row. */
    record Row(String suite, Path file, String name, String expected) {
        @Override
        public String toString() {
            return suite + "/" + name;
        }
    }

    /** The corpus root, or null where there is none (located by {@link com.fairpix.core.Corpus}). */
    static Path root() {
        try {
            return com.fairpix.core.Corpus.root();
        } catch (org.opentest4j.TestAbortedException absent) {
            return null;
        }
    }

    static List<Row> rows() {
        Path root = root();
        if (root == null) return List.of();
        List<Row> rows = new ArrayList<>();
        try (Stream<Path> suites = Files.list(root)) {
            for (Path suite : suites.sorted().toList()) {
                Path manifest = suite.resolve("MANIFEST.tsv");
                if (!Files.isRegularFile(manifest)) continue;
                List<String> lines = Files.readAllLines(manifest);
                List<String> head = List.of(lines.get(0).split("\t"));
                int file = head.indexOf("file"), expected = head.indexOf("expected");
                for (String line : lines.subList(1, lines.size())) {
                    if (line.isBlank()) continue;
                    String[] f = line.split("\t");
                    rows.add(new Row(suite.getFileName().toString(), suite.resolve(f[file]), f[file], f[expected]));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    static Path file(String suite, String name) {
        Path root = root();
        return root == null ? null : root.resolve(suite).resolve(name);
    }

    /** Mean absolute difference over all channels, 0–255 levels. */
    static double mad(Mat a, Mat b) {
        Mat d = new Mat();
        Core.absdiff(a, b, d);
        Scalar m = Core.mean(d);
        d.release();
        double sum = 0;
        for (int c = 0; c < a.channels(); c++) sum += m.val[c];
        return sum / a.channels();
    }
}
