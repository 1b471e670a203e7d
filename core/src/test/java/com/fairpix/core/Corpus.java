package com.fairpix.core;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The shared image corpus ({@code shared/corpus}, a sibling of the repository, or the folder named by
 * the {@code fairpix.corpus} system property), used in place: the one corpus locator of every
 * module's tests. Unit tests that need it are skipped, not failed, where it is absent, unless
 * {@code FAIRPIX_REQUIRE_CORPUS=1} (scripts/test sets it: there a missing corpus must not pass as
 * a green run with tests skipped); integration tests ({@link #required}) and the corpus test
 * ({@link #rows}) always fail instead.
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

    private static final boolean REQUIRED = "1".equals(System.getenv("FAIRPIX_REQUIRE_CORPUS"));

    /** The corpus root; skips the calling test when there is none (fails it when the corpus is required). */
    public static Path root() {
        present(ROOT != null, "shared/corpus not found above " + Path.of("").toAbsolutePath() + " (set -Dfairpix.corpus)", REQUIRED);
        return ROOT;
    }

    /** A corpus file, e.g. {@code path("exif-orientation/Landscape_6.jpg")}; skips when absent (fails when required). */
    public static Path path(String relative) {
        Path p = root().resolve(relative);
        present(Files.isRegularFile(p), "corpus file missing: " + relative, REQUIRED);
        return p;
    }

    /**
     * A corpus file that the corpus may hold back (its README: half of some suites is kept for
     * evaluation): skips the calling test where it is absent, even when the corpus is required.
     */
    public static Path mayBeHeldBack(String relative) {
        Path p = root().resolve(relative);
        assumeTrue(Files.isRegularFile(p), "corpus file held back here: " + relative);
        return p;
    }

    /**
     * Skips the calling test when {@code present} is false, or fails it when {@code required}.
     *
     * @throws AssertionError when absent and required
     * @throws org.opentest4j.TestAbortedException when absent and not required (JUnit skips the test)
     */
    static void present(boolean present, String what, boolean required) {
        if (present) return;
        if (required) throw new AssertionError(what + " (FAIRPIX_REQUIRE_CORPUS=1)");
        assumeTrue(false, what);
    }

    /**
     * A corpus file an integration test cannot do without, e.g. {@code required("cameratrap-photos/ocelot.jpg")}.
     *
     * @throws AssertionError when the corpus or the file is missing (the test fails, it is not skipped)
     */
    public static Path required(String relative) {
        if (ROOT == null) throw new AssertionError("shared/corpus not found above " + Path.of("").toAbsolutePath() + " (set -Dfairpix.corpus)");
        Path p = ROOT.resolve(relative);
        if (!Files.isRegularFile(p)) throw new AssertionError("corpus file missing: " + p);
        return p;
    }

    /** A corpus file's bytes; skips when absent. */
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

        /** Where the file is (it may be missing: see {@link #rows}). */
        public Path path() {
            return ROOT.resolve(suite).resolve(file);
        }

        @Override
        public String toString() {
            return relative();
        }
    }

    /** The rows of {@code {suite}/MANIFEST.tsv} whose file exists; empty when the corpus is absent. */
    public static List<Row> manifest(String suite) {
        if (ROOT == null) return List.of();
        return read(suite).stream().filter(r -> Files.isRegularFile(r.path())).toList();
    }

    /**
     * Every row of every suite's MANIFEST.tsv, suites in name order; empty when the corpus is
     * absent. A row whose file is missing is kept, so that it fails rather than silently shrinking
     * the test.
     */
    public static List<Row> rows() {
        if (ROOT == null) return List.of();
        List<Row> rows = new ArrayList<>();
        try (Stream<Path> suites = Files.list(ROOT)) {
            for (Path suite : suites.sorted().toList()) rows.addAll(read(suite.getFileName().toString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    /** The rows of {@code {suite}/MANIFEST.tsv} (none without one), the file named by the {@code file} column. */
    private static List<Row> read(String suite) {
        Path manifest = ROOT.resolve(suite).resolve("MANIFEST.tsv");
        if (!Files.isRegularFile(manifest)) return List.of();
        List<Row> rows = new ArrayList<>();
        try {
            List<String> lines = Files.readAllLines(manifest);
            List<String> header = List.of(lines.get(0).split("\t", -1));
            int file = header.indexOf("file");
            for (String line : lines.subList(1, lines.size())) {
                if (line.isBlank()) continue;
                List<String> cells = List.of(line.split("\t", -1));
                rows.add(new Row(suite, cells.get(file), header, cells));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }
}
