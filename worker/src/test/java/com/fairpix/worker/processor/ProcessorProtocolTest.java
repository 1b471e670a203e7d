package com.fairpix.worker.processor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The processor protocol's frames, the /proc readings and how a death is told apart, without starting a processor. */
class ProcessorProtocolTest {
    static final Duration DEADLINE = Duration.ofSeconds(31);

    @Test
    void framesRoundTripTheirHeaderAndPartsAndEndCleanly() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        Frames.write(out, Frames.header("job").put("id", "j1"), List.of(new byte[] {1, 2, 3}, new byte[0], new byte[] {9}));
        Frames.write(out, Frames.header("hello"), List.of());
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
        Frames.Frame job = Frames.read(in);
        assertThat(job.type()).isEqualTo("job");
        assertThat(job.header().get("id").asText()).isEqualTo("j1");
        assertThat(job.blobs()).containsExactly(new byte[] {1, 2, 3}, new byte[0], new byte[] {9});
        assertThat(Frames.read(in).type()).isEqualTo("hello");
        assertThat(Frames.read(in)).as("a clean end of stream").isNull();
    }

    @Test
    void aFrameCutShortOrWithABadLengthIsAnError() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Frames.write(new DataOutputStream(bytes), Frames.header("result"), List.of(new byte[100]));
        byte[] cut = java.util.Arrays.copyOf(bytes.toByteArray(), bytes.size() - 10);
        assertThatThrownBy(() -> Frames.read(new DataInputStream(new ByteArrayInputStream(cut)))).isInstanceOf(EOFException.class);
        // What a JVM printing to stdout would look like: "[0.0" read as a length.
        assertThatThrownBy(() -> Frames.read(new DataInputStream(new ByteArrayInputStream("[0.012s][warning]".getBytes()))))
                .isInstanceOf(IOException.class).hasMessageContaining("frame header of");
        ObjectNode huge = Frames.header("result");
        huge.putArray("blobs").add(Long.MAX_VALUE);
        byte[] json = Frames.MAPPER.writeValueAsBytes(huge);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        new DataOutputStream(b).writeInt(json.length);
        b.write(json);
        assertThatThrownBy(() -> Frames.read(new DataInputStream(new ByteArrayInputStream(b.toByteArray())))).hasMessageContaining("frame part of");
    }

    @Test
    void procStatsReadCpuTicksPeakAndSizeAndResetThePeak(@TempDir Path proc) throws IOException {
        // Fields 14 and 15 (utime, stime) = 250 and 50 ticks; the command holds a space and a parenthesis.
        Files.writeString(proc.resolve("stat"), "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 10 19 0 12345 0 0\n");
        Files.writeString(proc.resolve("status"), "Name:\tjava\nVmPeak:\t 2000000 kB\nVmSize:\t 1900000 kB\nVmHWM:\t   91234 kB\nVmRSS:\t   80000 kB\n");
        Files.writeString(proc.resolve("clear_refs"), "");
        ProcStats stats = new ProcStats(proc);
        assertThat(stats.cpuMillis()).isEqualTo(3000);
        assertThat(stats.peakRssBytes()).isEqualTo(91234L * 1024);
        assertThat(stats.addressSpaceBytes()).isEqualTo(1900000L * 1024);
        assertThat(stats.resetPeak()).isTrue();
        assertThat(Files.readString(proc.resolve("clear_refs"))).isEqualTo("5");
        // Kept open, read again from offset 0: a new reading, not the first one's bytes.
        Files.writeString(proc.resolve("stat"), "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 300 100 0 0 20 10 19 0 12345 0 0\n");
        assertThat(stats.cpuMillis()).isEqualTo(4000);
        stats.close();
        assertThat(stats.cpuMillis()).as("closed: not opened again").isEqualTo(-1);
        ProcStats gone = new ProcStats(proc.resolve("nothing"));
        assertThat(gone.cpuMillis()).isEqualTo(-1);
        assertThat(gone.peakRssBytes()).isEqualTo(-1);
        assertThat(gone.resetPeak()).isFalse();
    }

    @Test
    void anOriginalComesInlineOrFromTheHandOverFileByItsLength(@TempDir Path dir) throws IOException {
        Frames.Frame inline = new Frames.Frame(Frames.header("job"), List.of(new byte[] {1, 2}, new byte[] {3}));
        assertThat(ProcessorMain.withOriginal(inline, null)).isSameAs(inline);

        Path file = dir.resolve("1.original");
        Files.write(file, new byte[] {9, 8, 7, 6, 5, 0, 0, 0}); // a longer file: the frame says how much is this job's
        Frames.Frame job = new Frames.Frame(Frames.header("job").put("original", 5), List.of(new byte[] {3}));
        try (java.io.RandomAccessFile handover = new java.io.RandomAccessFile(file.toFile(), "r")) {
            Frames.Frame read = ProcessorMain.withOriginal(job, handover);
            assertThat(read.blobs()).hasSize(2);
            assertThat(read.blobs().get(0)).containsExactly(9, 8, 7, 6, 5);
            assertThat(read.blobs().get(1)).containsExactly(3);
        }
        assertThatThrownBy(() -> ProcessorMain.withOriginal(job, null)).isInstanceOf(IOException.class).hasMessageContaining("no hand-over file");
    }

    @Test
    void aDeathIsTimeoutOutOfMemoryOrDecoderCrashedByHowTheProcessorEnded() {
        assertThat(Processor.classify(137, true, "", DEADLINE).reason).isEqualTo("timeout");
        assertThat(Processor.classify(null, true, "", DEADLINE).getMessage()).contains("deadline", "31 s");
        assertThat(Processor.classify(3, false, "Terminating due to java.lang.OutOfMemoryError: Java heap space", DEADLINE).reason).isEqualTo("out-of-memory");
        assertThat(Processor.classify(137, false, "", DEADLINE).reason).as("a SIGKILL the worker did not send: the OOM killer").isEqualTo("out-of-memory");
        assertThat(Processor.classify(134, false, "terminate called after throwing an instance of 'std::bad_alloc'", DEADLINE).reason).isEqualTo("out-of-memory");
        assertThat(Processor.classify(139, false, "", DEADLINE).reason).isEqualTo("decoder-crashed");
        assertThat(Processor.classify(139, false, "", DEADLINE).getMessage()).contains("signal SIGSEGV");
        String hotspot = "#\n# A fatal error has been detected by the Java Runtime Environment:\n#\n#  SIGSEGV (0xb) at pc=0x00007fab6ec0964b, pid=10089, tid=10091\n";
        assertThat(Processor.classify(1, false, hotspot, DEADLINE).reason).isEqualTo("decoder-crashed");
        assertThat(Processor.classify(1, false, hotspot, DEADLINE).getMessage()).contains("crashed with SIGSEGV");
        assertThat(Processor.classify(0, false, "", DEADLINE).reason).as("any other exit mid-job").isEqualTo("decoder-crashed");
    }
}
