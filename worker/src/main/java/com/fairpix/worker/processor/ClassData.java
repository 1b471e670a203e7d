package com.fairpix.worker.processor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processors' class-data-sharing archive (AppCDS, JEP 350): the classes a processor loads,
 * mapped from a file instead of parsed and verified on every start, which halves a processor's start
 * cost (docs/processors.md). One archive per JDK and class path, in a directory shared by every
 * worker on the machine. The first processor started without one dumps it at its exit
 * ({@code -XX:ArchiveClassesAtExit}) into a file of its own, moved into place when it is complete, so
 * a processor never maps a half-written archive; a lock file keeps a second worker from dumping at
 * the same time.
 */
final class ClassData {
    private static final Logger log = LoggerFactory.getLogger(ClassData.class);
    /** A lock older than this is left from a killed worker. */
    private static final long STALE_LOCK_MILLIS = 10 * 60_000;

    private final Path dir;
    private final Path archive;
    private final Path lock;
    private final Path part;
    private Processor dumper;
    private boolean locked;

    private final java.time.Clock clock;
    private final boolean jarsOnly;

    /**
     * @param classPath the processors' class path
     * @param clock     tells a stale lock's age
     */
    ClassData(Path dir, String classPath, java.time.Clock clock) {
        this.dir = dir;
        this.clock = clock;
        this.jarsOnly = jarsOnly(classPath);
        // The JVM refuses an archive whose jars changed (size, time): a rebuilt jar makes a new key.
        StringBuilder key = new StringBuilder(System.getProperty("java.home") + "|" + System.getProperty("java.vm.version") + "|" + classPath);
        for (String e : classPath.split(java.io.File.pathSeparator)) {
            try {
                Path p = Path.of(e);
                if (Files.isRegularFile(p)) key.append('|').append(Files.size(p)).append('@').append(Files.getLastModifiedTime(p).toMillis());
            } catch (IOException | RuntimeException ex) {
                key.append("|?");
            }
        }
        String name = "processor-" + sha256(key.toString()).substring(0, 16);
        this.archive = dir.resolve(name + ".jsa");
        this.lock = dir.resolve(name + ".lock");
        this.part = dir.resolve(name + "-" + java.util.UUID.randomUUID() + ".part");
    }

    /** The directory processors must be able to write (the dumping one writes its archive there); null when it cannot be made. */
    Path dir() {
        try {
            Files.createDirectories(dir);
            return dir;
        } catch (IOException e) {
            return null;
        }
    }

    /** The flags for one processor start: map the archive, dump it, or nothing. */
    record Use(List<String> flags, boolean dumps, ClassData owner) {
        /** The start failed: a dumper that never ran releases the lock. */
        void abandon() {
            if (dumps) owner.release();
        }
    }

    synchronized Use use() {
        // CDS archives classes from jars only: a folder on the class path (Maven's target/classes, in tests) makes the dump fail.
        if (!jarsOnly) return new Use(List.of(), false, this);
        if (Files.isRegularFile(archive)) return new Use(List.of("-XX:SharedArchiveFile=" + archive), false, this);
        if (dumper != null && !dumper.alive()) release(); // it died before it could write the archive
        if (locked || dir() == null) return new Use(List.of(), false, this);
        try {
            try {
                Files.createFile(lock);
            } catch (FileAlreadyExistsException e) {
                if (clock.millis() - Files.getLastModifiedTime(lock).toMillis() < STALE_LOCK_MILLIS) return new Use(List.of(), false, this);
                Files.deleteIfExists(lock);
                Files.createFile(lock);
            }
        } catch (IOException e) {
            return new Use(List.of(), false, this);
        }
        locked = true;
        return new Use(List.of("-XX:ArchiveClassesAtExit=" + part), true, this);
    }

    synchronized void dumper(Processor p) {
        dumper = p;
    }

    synchronized boolean isDumper(Processor p) {
        return p == dumper;
    }

    /** After the processors stopped: moves a complete archive into place and releases the lock. */
    synchronized void finish() {
        if (!locked) return;
        try {
            if (dumper != null && !dumper.alive() && Files.isRegularFile(part) && Files.size(part) > 0) {
                Files.move(part, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                log.info("processor class-data archive written: {} ({} KiB)", archive, Files.size(archive) >> 10);
                deleteUnused(dir, archive, clock);
            }
        } catch (IOException e) {
            log.info("processor class-data archive not written: {}", e.toString());
        }
        release();
    }

    private synchronized void release() {
        try {
            Files.deleteIfExists(part);
            if (locked) Files.deleteIfExists(lock);
        } catch (IOException e) {
            log.debug("class-data lock {} left: {}", lock, e.toString());
        }
        locked = false;
        dumper = null;
    }

    /** Archives in {@code dir} other than {@code keep} not modified for a day (jars rebuilt since): deleted. */
    static void deleteUnused(Path dir, Path keep, java.time.Clock clock) {
        try (var files = Files.newDirectoryStream(dir, "processor-*.jsa")) {
            for (Path f : files) {
                if (!f.equals(keep) && clock.millis() - Files.getLastModifiedTime(f).toMillis() > 86_400_000L) Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            log.debug("old class-data archives in {} not deleted: {}", dir, e.toString());
        }
    }

    /** True when no entry of the class path, nor of a jar's manifest Class-Path (a test runner's booter jar), is a folder. */
    static boolean jarsOnly(String classPath) {
        for (String e : classPath.split(java.io.File.pathSeparator)) {
            if (e.isEmpty()) continue;
            Path p = Path.of(e);
            if (Files.isDirectory(p)) return false;
            if (!Files.isRegularFile(p)) continue;
            try (java.util.jar.JarFile jar = new java.util.jar.JarFile(p.toFile())) {
                java.util.jar.Manifest m = jar.getManifest();
                String cp = m == null ? null : m.getMainAttributes().getValue(java.util.jar.Attributes.Name.CLASS_PATH);
                if (cp != null && java.util.Arrays.stream(cp.trim().split("\\s+")).anyMatch(u -> u.endsWith("/"))) return false;
            } catch (IOException ex) {
                return false;
            }
        }
        return true;
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
