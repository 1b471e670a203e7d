package com.fairpix.core.usage;

import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;

/**
 * Measured usage of finished jobs, summed: one job's, or one tenant's over an hour, a day or a window.
 * Every figure is an exact integer (docs/usage.md says how each is measured and how closely).
 *
 * @param jobs          finished jobs counted (DONE + FAILED), each once however often it was tried or delivered
 * @param done          of those, DONE
 * @param failed        of those, FAILED
 * @param cpuMillis     CPU time (user + system) the jobs' processor processes spent on them, ms (a job's
 *                      last attempt that finished its image work; 0 for a job whose image work never finished)
 * @param bytesIn       bytes of the jobs' originals (the upload as stored), once per job
 * @param bytesOut      bytes of the results written (every variant, as stored)
 * @param outputPixels  pixels of the results written (width × height, summed over variants)
 * @param peakRssBytes  the highest peak resident memory of any one job's processor (a maximum, not a sum)
 */
public record UsageTotals(long jobs, long done, long failed, long cpuMillis, long bytesIn, long bytesOut, long outputPixels, long peakRssBytes) {
    public static final UsageTotals NONE = new UsageTotals(0, 0, 0, 0, 0, 0, 0, 0);

    /** The figures one finished (DONE or FAILED) job adds. */
    public static UsageTotals of(JobRecord job) {
        if (job.state() != JobState.DONE && job.state() != JobState.FAILED) {
            throw new IllegalArgumentException("job " + job.id() + " is " + job.state() + ": only DONE and FAILED jobs are counted");
        }
        long out = 0, pixels = 0;
        if (job.results() != null) {
            for (JobRecord.Result r : job.results().values()) {
                out += r.size();
                pixels += (long) r.width() * r.height();
            }
        }
        JobRecord.Usage u = job.usage();
        return new UsageTotals(1, job.state() == JobState.DONE ? 1 : 0, job.state() == JobState.FAILED ? 1 : 0,
                u == null ? 0 : u.cpuMillis(), job.original() == null ? 0 : job.original().size(), out, pixels,
                u == null ? 0 : u.peakRssBytes());
    }

    /** These figures and {@code o}'s: sums, and the larger peak. */
    public UsageTotals plus(UsageTotals o) {
        return new UsageTotals(jobs + o.jobs, done + o.done, failed + o.failed, cpuMillis + o.cpuMillis, bytesIn + o.bytesIn,
                bytesOut + o.bytesOut, outputPixels + o.outputPixels, Math.max(peakRssBytes, o.peakRssBytes));
    }

    public double cpuSeconds() { return cpuMillis / 1000.0; }

    public double outputMegapixels() { return outputPixels / 1_000_000.0; }

    /** The roll-up's stored form: the eight figures in declaration order, comma-separated. */
    public String encode() {
        return jobs + "," + done + "," + failed + "," + cpuMillis + "," + bytesIn + "," + bytesOut + "," + outputPixels + "," + peakRssBytes;
    }

    /** Reads {@link #encode()}'s form; a missing trailing figure (an older, shorter form) reads 0. */
    public static UsageTotals decode(String s) {
        if (s == null || s.isEmpty()) return NONE;
        long[] v = new long[8];
        int i = 0, start = 0;
        for (int k = 0; k <= s.length() && i < v.length; k++) {
            if (k == s.length() || s.charAt(k) == ',') {
                v[i++] = Long.parseLong(s, start, k, 10);
                start = k + 1;
            }
        }
        return new UsageTotals(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    }
}
