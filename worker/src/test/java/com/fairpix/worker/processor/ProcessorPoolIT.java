package com.fairpix.worker.processor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.worker.process.Assets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The processors' pool around the jobs: started ahead of the first job, replaced in the background
 * when one dies while idle, and their directory deleted on close (and, when a worker left it, by the
 * next worker's start). Real processors, unsandboxed (about half a CPU-second each).
 */
class ProcessorPoolIT {

    @Test
    void prestartedProcessorsServeTheFirstJobsAndOneKilledWhileIdleIsReplacedWithoutAJob() throws Exception {
        ProcessorProcesses processors = ProcessorProcesses.start(1, 100_000_000, Duration.ofSeconds(5), 256L << 20, 256, false);
        Path dir = processors.dir();
        try {
            assertThat(processors.processors()).isZero();
            processors.prestart(processors.threadNices(1, 0, 0)).get(60, TimeUnit.SECONDS);
            List<Long> before = processors.pids();
            assertThat(before).as("started before any job").hasSize(1);
            processors.process("job-1", ProcessorProcessesTest.jpeg(""), ProcessorProcessesTest.SPEC, Assets.NONE);
            assertThat(processors.pids()).as("the first job ran on the processor started ahead").isEqualTo(before);

            ProcessHandle.of(before.get(0)).orElseThrow().destroyForcibly();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < until && (processors.pids().isEmpty() || processors.pids().equals(before))) Thread.sleep(50);
            List<Long> after = processors.pids();
            assertThat(after).as("replaced in the background, no job asking").hasSize(1).doesNotContainAnyElementsOf(before);
            processors.process("job-2", ProcessorProcessesTest.jpeg(""), ProcessorProcessesTest.SPEC, Assets.NONE);
            assertThat(processors.pids()).as("the next job ran on the replacement").isEqualTo(after);
        } finally {
            processors.close();
        }
        assertThat(dir).as("the processors' directory is deleted on close").doesNotExist();
    }

    @Test
    void threadNicesPutTheSharedThreadsAtTheSharedNiceAndTheReservedAtTheWorkers() {
        ProcessorProcesses processors = ProcessorProcesses.start(3, 100_000_000, Duration.ofSeconds(5), 256L << 20, 256, false);
        try {
            Integer own = com.fairpix.worker.run.CpuPriority.currentThreadNice();
            int base = own == null ? 0 : own;
            assertThat(processors.threadNices(2, 10, 1)).containsExactly(Math.max(base, 10), Math.max(base, 10), base);
            assertThat(processors.threadNices(1, 0, 2)).containsExactly(base, base, base);
        } finally {
            processors.close();
        }
    }

    @Test
    void sweepDeletesTheDirectoriesOfWorkersThatAreGone(@TempDir Path tmp) throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path dead = Files.createDirectories(tmp.resolve(ProcessorProcesses.DIR_PREFIX + gone.pid() + "-123"));
        Files.writeString(dead.resolve("hs_err_pid1.log"), "left over");
        Path mine = Files.createDirectories(tmp.resolve(ProcessorProcesses.DIR_PREFIX + ProcessHandle.current().pid() + "-456"));
        Path oldStyle = Files.createDirectories(tmp.resolve("fairpix-processors-10381723228907825630"));
        Files.setLastModifiedTime(oldStyle, FileTime.from(Instant.now().minus(Duration.ofHours(2))));
        Path oldStyleRecent = Files.createDirectories(tmp.resolve("fairpix-processors-11336861744961332671"));
        Path other = Files.createDirectories(tmp.resolve("fairpix-processors-pnot-a-pid"));

        int deleted = ProcessorProcesses.sweep(tmp, java.time.Clock.systemUTC());

        assertThat(deleted).isEqualTo(2);
        assertThat(dead).doesNotExist();
        assertThat(oldStyle).doesNotExist();
        assertThat(mine).exists();
        assertThat(oldStyleRecent).as("another worker's, maybe still running").exists();
        assertThat(other).exists();
    }
}
