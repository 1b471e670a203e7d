package com.fairpix.worker.processor;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * What Linux says about a processor process in {@code /proc/<pid>}: its CPU time (utime + stime of
 * {@code stat}, all threads), its peak resident set ({@code VmHWM} of {@code status}) and its
 * address space ({@code VmSize}). Writing {@code 5} to {@code clear_refs} resets the peak to the
 * current RSS (Linux ≥ 4.0), so a peak read after a job is that job's. Every reader answers -1 where
 * it cannot tell (not Linux, the process gone).
 *
 * <p>The three files are opened once and kept open ({@link #close} closes them): each reading is
 * one {@code pread} at offset 0, which a {@code /proc} file answers afresh, and each reset one
 * {@code write}. Opening them by path for every reading (four opens per job: a path walk through
 * {@code /proc} and its permission checks each) measured ~0.3 ms of the worker's CPU per job. An
 * open file also stays with its process: should the pid be reused, it reads nothing rather than
 * another process.
 */
final class ProcStats implements AutoCloseable {
    /** USER_HZ: the unit of utime/stime; 100 on every Linux ABI in use (sysconf(_SC_CLK_TCK)). */
    static final long TICKS_PER_SECOND = 100;
    private static final ByteBuffer FIVE = ByteBuffer.wrap(new byte[] {'5'}).asReadOnlyBuffer();

    private final Path dir;
    private FileChannel stat, status, clearRefs;
    /** Closed: every reading answers -1 (the files are not opened again by a pid that may be another process's now). */
    private boolean closed;
    private ByteBuffer buffer = ByteBuffer.allocate(4096);

    ProcStats(long pid) {
        this(Path.of("/proc", Long.toString(pid)));
    }

    ProcStats(Path dir) {
        this.dir = dir;
    }

    /** utime + stime, milliseconds; -1 when unknown. */
    synchronized long cpuMillis() {
        if (closed) return -1;
        try {
            if (stat == null) stat = FileChannel.open(dir.resolve("stat"), StandardOpenOption.READ);
            int n = readAll(stat);
            byte[] b = buffer.array();
            // Field 2, the command, may hold spaces and parentheses: count from the last ')'.
            int i = n - 1;
            while (i >= 0 && b[i] != ')') i--;
            if (i < 0) return -1;
            i += 2; // ") " then field 3
            for (int field = 3; field < 14; field++) {
                while (i < n && b[i] != ' ') i++;
                i++;
            }
            long utime = 0, stime = 0;
            int digits = 0;
            for (; i < n && b[i] >= '0' && b[i] <= '9'; i++, digits++) utime = utime * 10 + (b[i] - '0');
            for (i++; i < n && b[i] >= '0' && b[i] <= '9'; i++, digits++) stime = stime * 10 + (b[i] - '0');
            return digits == 0 ? -1 : (utime + stime) * 1000 / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Resets the peak RSS to the current RSS; false where that is not possible. */
    synchronized boolean resetPeak() {
        if (closed) return false;
        try {
            if (clearRefs == null) clearRefs = FileChannel.open(dir.resolve("clear_refs"), StandardOpenOption.WRITE);
            return clearRefs.write(FIVE.duplicate(), 0) == 1;
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

    private synchronized long statusKib(String field) {
        if (closed) return -1;
        try {
            if (status == null) status = FileChannel.open(dir.resolve("status"), StandardOpenOption.READ);
            int n = readAll(status);
            byte[] b = buffer.array();
            int at = find(b, n, field);
            if (at < 0) return -1;
            int i = at + field.length();
            while (i < n && (b[i] == ' ' || b[i] == '\t')) i++;
            long kib = 0;
            int digits = 0;
            for (; i < n && b[i] >= '0' && b[i] <= '9'; i++, digits++) kib = kib * 10 + (b[i] - '0');
            return digits == 0 ? -1 : kib * 1024;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The offset of {@code field} at the start of a line of {@code b[0..n)}, or -1. */
    private static int find(byte[] b, int n, String field) {
        int length = field.length();
        for (int line = 0; line < n; ) {
            if (line + length <= n) {
                int k = 0;
                while (k < length && b[line + k] == field.charAt(k)) k++;
                if (k == length) return line;
            }
            while (line < n && b[line] != '\n') line++;
            line++;
        }
        return -1;
    }

    /** Reads the whole file from offset 0 into {@link #buffer} (grown as needed): its length. */
    private int readAll(FileChannel channel) throws IOException {
        buffer.clear();
        while (true) {
            int r = channel.read(buffer, buffer.position());
            if (r <= 0) break;
            if (!buffer.hasRemaining()) {
                ByteBuffer bigger = ByteBuffer.allocate(buffer.capacity() * 2);
                buffer.flip();
                bigger.put(buffer);
                buffer = bigger;
            }
        }
        return buffer.position();
    }

    /** Closes the files kept open. */
    @Override
    public synchronized void close() {
        for (FileChannel c : new FileChannel[] {stat, status, clearRefs}) {
            try {
                if (c != null) c.close();
            } catch (IOException e) {
                // nothing to do
            }
        }
        stat = status = clearRefs = null;
        closed = true;
    }
}
