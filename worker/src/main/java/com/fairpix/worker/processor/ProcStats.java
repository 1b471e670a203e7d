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
            // One read, parsed by hand: this runs twice per job.
            byte[] b = Files.readAllBytes(dir.resolve("stat"));
            // Field 2, the command, may hold spaces and parentheses: count from the last ')'.
            int i = b.length - 1;
            while (i >= 0 && b[i] != ')') i--;
            if (i < 0) return -1;
            i += 2; // ") " then field 3
            for (int field = 3; field < 14; field++) {
                while (i < b.length && b[i] != ' ') i++;
                i++;
            }
            long utime = 0, stime = 0;
            for (; i < b.length && b[i] != ' '; i++) utime = utime * 10 + (b[i] - '0');
            for (i++; i < b.length && b[i] >= '0' && b[i] <= '9'; i++) stime = stime * 10 + (b[i] - '0');
            return (utime + stime) * 1000 / TICKS_PER_SECOND;
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
            String status = new String(Files.readAllBytes(dir.resolve("status")), java.nio.charset.StandardCharsets.ISO_8859_1);
            int at = status.startsWith(field) ? 0 : status.indexOf("\n" + field) + 1;
            if (at <= 0 && !status.startsWith(field)) return -1;
            int i = at + field.length();
            while (i < status.length() && (status.charAt(i) == ' ' || status.charAt(i) == '\t')) i++;
            long kib = 0;
            int digits = 0;
            for (; i < status.length() && Character.isDigit(status.charAt(i)); i++, digits++) kib = kib * 10 + (status.charAt(i) - '0');
            return digits == 0 ? -1 : kib * 1024;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
