package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fairpix submit} of several files against a real ingest: with {@code --progress always}
 * the bar (me.tongfei:progressbar) is drawn on stderr and reaches every file, the job ids still go
 * to stdout; with the default {@code auto}, and no terminal (as here, as in a pipe or CI), no bar.
 */
class SubmitProgressIT {
    @RegisterExtension
    static final Farm.Ingest farm = new Farm.Ingest();

    @Test
    void theBarShowsEveryFileOnStderrWhenAskedAndStaysAwayWithoutATerminal(@TempDir Path dir) throws Exception {
        String key = farm.client().createTenant(Farm.tenantId("it-progress"), Map.of("rate", 100, "burst", 100));
        List<String> files = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Path f = dir.resolve("p" + i + ".jpg");
            Files.write(f, Farm.smallJpeg(160, 120, i));
            files.add(f.toString());
        }
        String url = "http://127.0.0.1:" + farm.api().port();

        Run always = submit(url, key, "always", files);
        assertThat(always.code).as(always.err).isZero();
        assertThat(always.out.lines().filter(l -> l.contains("\t")).count()).as("one id per file on stdout: " + always.out).isEqualTo(3);
        assertThat(always.err).as("the bar on stderr").contains("submit").contains("3/3");

        Run auto = submit(url, key, "auto", files);
        assertThat(auto.code).as(auto.err).isZero();
        assertThat(auto.out.lines().filter(l -> l.contains("\t")).count()).isEqualTo(3);
        assertThat(auto.err).as("no terminal here: no bar").doesNotContain("3/3").doesNotContain("submit");
    }

    record Run(int code, String out, String err) {}

    private static Run submit(String url, String key, String progress, List<String> files) {
        picocli.CommandLine cl = com.fairpix.cli.Fairpix.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        ByteArrayOutputStream bar = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        System.setErr(new PrintStream(bar, true, StandardCharsets.UTF_8));
        int code;
        try {
            List<String> args = new ArrayList<>(List.of("submit", "--url", url, "--tenant-key", key, "--spec", Farm.SPEC, "--progress", progress));
            args.addAll(files);
            code = cl.execute(args.toArray(String[]::new));
        } finally {
            System.setErr(stderr);
        }
        return new Run(code, out.toString(), err + bar.toString(StandardCharsets.UTF_8));
    }
}
