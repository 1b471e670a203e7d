package com.fairpix.worker.processor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What Linux says about a processor process in {@code /proc/<pid>}: its CPU time (utime + stime of
 * {@code stat}, all threads), its peak resident set ({@code VmHWM} of {@code status}) and its
 * address space ({@code VmSize}). Writing {@code 5} to {@code clear_refs} resets the peak to the
 * current RSS (Linux ≥ 4.0), so a peak read after a job is that job's. Every reader answers -1 where
 * it cannot tell (not Linux, the process gone).
 */
final class ProcStats {
    /** USER_HZ: the unit of utime/stime; 100 on every Linux ABI in use (sysconf(_SC_CLK_TCK)). */
    static final long TICKS_PER_SECOND = 100;

    private final Path dir;

    ProcStats(long pid) {
        this(Path.of("/proc", Long.toString(pid)));
    }

    ProcStats(Path dir) {
        this.dir = dir;
    }

    /** utime + stime, milliseconds; -1 when unknown. */
    long cpuMillis() {
        try {
            String line = Files.readString(dir.resolve("stat"));
            // Field 2, the command, may hold spaces and parentheses: count from the last ')'.
            String[] f = line.substring(line.lastIndexOf(')') + 2).trim().split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15 of the whole line
            return ticks * 1000 / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Resets the peak RSS to the current RSS; false where that is not possible. */
    boolean resetPeak() {
        try {
            Files.writeString(dir.resolve("clear_refs"), "5");
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** VmHWM, bytes; -1 when unknown. */
    long peakRssBytes() {
        return statusKib("VmHWM:");
    }

    /** VmSize, bytes; -1 when unknown. */
    long addressSpaceBytes() {
        return statusKib("VmSize:");
    }

    private long statusKib(String field) {
        try {
            for (String line : Files.readAllLines(dir.resolve("status"))) {
                if (line.startsWith(field)) return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]) * 1024;
            }
            return -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
