package com.fairpix.worker.run;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A thread's CPU priority: its nice value (-20..19, higher yields more) under Linux's completely
 * fair scheduler, where a runnable thread's share of a contended core is in proportion to a weight
 * that falls about 1.25 times per nice step (nice 0 ≈ 1024, nice 10 ≈ 110; see sched(7)). On Linux
 * the nice value is per thread (setpriority(2), "BUGS"), so one JVM can run its image processing
 * in the background and its control path (polling Kafka, heartbeats, the reserved thread) at
 * normal priority. Java's own {@link Thread#setPriority} does nothing on Linux by default, hence
 * setpriority(2) through JNA.
 *
 * <p>Lowering a priority needs no privilege; raising it back does (RLIMIT_NICE), so a thread
 * lowered once stays there.
 */
public final class CpuPriority {
    private static final Logger log = LoggerFactory.getLogger(CpuPriority.class);
    private static volatile boolean warned;

    private CpuPriority() {}

    /** The JNA binding, in a class of its own: it is loaded (and may fail) only when first called. */
    private static final class LibC {
        private static final int PRIO_PROCESS = 0;

        private interface C extends Library {
            int setpriority(int which, int who, int prio) throws LastErrorException;
        }

        private static final C C = Native.load("c", C.class);

        /** Sets the calling thread's nice value: on Linux, who = 0 with PRIO_PROCESS is the calling thread. @return 0, or the errno */
        static int setpriority(int nice) {
            try {
                C.setpriority(PRIO_PROCESS, 0, nice);
                return 0;
            } catch (LastErrorException e) {
                return e.getErrorCode();
            }
        }
    }

    /**
     * Sets the calling thread's nice value; a value at or below the current one is left alone
     * (that would need privileges).
     *
     * @param nice 0..19
     * @return true when the thread's nice value is {@code nice} afterwards; false when this system
     *         cannot tell or set it (not Linux, no JNA native library; a warning is logged once) or
     *         the thread already runs at a higher nice value
     * @throws IllegalArgumentException if {@code nice} is outside 0..19
     */
    public static boolean lowerCurrentThread(int nice) {
        if (nice < 0 || nice > 19) throw new IllegalArgumentException("nice must be 0..19, got " + nice);
        Integer current = currentThreadNice();
        if (current == null) {
            warnOnce("cannot read /proc/thread-self/stat");
            return false;
        }
        if (current >= nice) return current == nice;
        try {
            int errno = LibC.setpriority(nice);
            if (errno != 0) warnOnce("setpriority(" + nice + ") failed: errno " + errno);
            return errno == 0;
        } catch (Throwable e) { // LinkageError, ExceptionInInitializerError: no libc through JNA here
            warnOnce("no setpriority(2) through JNA: " + e);
            return false;
        }
    }

    /**
     * The calling thread's nice value (field 19 of /proc/thread-self/stat; the command name, field 2,
     * may hold spaces and parentheses), or null where this system cannot tell.
     */
    public static Integer currentThreadNice() {
        return niceOf(Path.of("/proc/thread-self/stat"));
    }

    /**
     * The nice value in a thread's {@code /proc/.../stat} file (field 19; the command name, field 2,
     * may hold spaces and parentheses), or null where it cannot be read (no such file: not Linux, or
     * the thread ended).
     */
    public static Integer niceOf(Path stat) {
        try {
            String line = Files.readString(stat);
            String[] fields = line.substring(line.lastIndexOf(')') + 2).trim().split(" ");
            return Integer.parseInt(fields[16]); // field 19 of the whole line: 3 + 16
        } catch (Exception e) {
            return null;
        }
    }

    private static void warnOnce(String why) {
        if (!warned) {
            warned = true;
            log.warn("processing threads keep normal CPU priority: {}", why);
        }
    }
}
