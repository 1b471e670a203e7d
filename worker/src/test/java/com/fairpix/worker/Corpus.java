package com.fairpix.worker;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The shared image corpus ({@code shared/corpus}, a sibling of the repository, or the folder named by
 * the {@code fairpix.corpus} system property), used in place. Tests that need it are skipped, not
 * failed, where it is absent.
 */
public final class Corpus {
    private static final Path ROOT = locate();

    private Corpus() {}

    private static Path locate() {
        String override = System.getProperty("fairpix.corpus"); // e.g. -Dfairpix.corpus=/data/corpus
        if (override != null) return Files.isDirectory(Path.of(override)) ? Path.of(override).toAbsolutePath() : null;
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("shared").resolve("corpus");
            if (Files.isDirectory(candidate)) return candidate;
        }
        return null;
    }

    /** The corpus root; skips the calling test when there is none. */
    public static Path root() {
        assumeTrue(ROOT != null, "shared/corpus not found above " + Path.of("").toAbsolutePath());
        return ROOT;
    }

    /** A corpus file, e.g. {@code path("exif-orientation/Landscape_6.jpg")}; skips when absent. */
    public static Path path(String relative) {
        Path p = root().resolve(relative);
        assumeTrue(Files.isRegularFile(p), "corpus file missing: " + relative);
        return p;
    }

    public static byte[] bytes(String relative) {
        try {
            return Files.readAllBytes(path(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One MANIFEST.tsv row: the file (relative to its suite) and its columns by header name. */
    public record Row(String suite, String file, List<String> header, List<String> cells) {
        public String get(String column) {
            int i = header.indexOf(column);
            return i < 0 || i >= cells.size() ? null : cells.get(i);
        }

        public String relative() {
            return suite + "/" + file;
        }

        @Override
        public String toString() {
            return relative();
        }
    }

    /** The rows of {@code {suite}/MANIFEST.tsv} whose file exists; empty when the corpus is absent. */
    public static List<Row> manifest(String suite) {
        List<Row> rows = new ArrayList<>();
        if (ROOT == null) return rows;
        Path manifest = ROOT.resolve(suite).resolve("MANIFEST.tsv");
        if (!Files.isRegularFile(manifest)) return rows;
        try {
            List<String> lines = Files.readAllLines(manifest);
            List<String> header = List.of(lines.get(0).split("\t", -1));
            for (String line : lines.subList(1, lines.size())) {
                if (line.isBlank()) continue;
                List<String> cells = List.of(line.split("\t", -1));
                if (Files.isRegularFile(ROOT.resolve(suite).resolve(cells.get(0)))) {
                    rows.add(new Row(suite, cells.get(0), header, cells));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }
}
