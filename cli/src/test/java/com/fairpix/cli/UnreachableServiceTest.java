package com.fairpix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** A command pointed where nothing listens says in one line what to start, and exits 3 (unavailable). */
class UnreachableServiceTest {
    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static String[] run(String... args) {
        CommandLine cl = Fairpix.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        int code = cl.execute(args);
        return new String[] {Integer.toString(code), err.toString()};
    }

    @Test
    void topWithoutAnAutoscalerNamesTheCommandThatStartsOne() throws Exception {
        String url = "http://127.0.0.1:" + freePort();
        String[] r = run("top", "--once", "--url", url, "--admin-token", "t");
        assertThat(r[0]).isEqualTo(Integer.toString(Fairpix.UNAVAILABLE));
        assertThat(r[1].strip().lines()).hasSize(1);
        assertThat(r[1]).contains("cannot reach the autoscaler at " + url, "fairpix autoscaler", "fairpix local` does not run one", "FAIRPIX_AUTOSCALER_URL")
                .doesNotContain("java.net.ConnectException");
    }

    @Test
    void scaleStatusToo() throws Exception {
        String[] r = run("scale", "status", "--url", "http://127.0.0.1:" + freePort(), "--admin-token", "t");
        assertThat(r[0]).isEqualTo(Integer.toString(Fairpix.UNAVAILABLE));
        assertThat(r[1]).contains("cannot reach the autoscaler");
    }

    @Test
    void anIngestCommandNamesFairpixLocal() throws Exception {
        String[] r = run("jobs", "get", "01a231bf-8696-7308-946f-3d5491344147", "--url", "http://127.0.0.1:" + freePort(), "--tenant-key", "fp_x");
        assertThat(r[0]).as(r[1]).isEqualTo(Integer.toString(Fairpix.UNAVAILABLE));
        assertThat(r[1].strip().lines()).hasSize(1);
        assertThat(r[1]).contains("cannot reach the ingest API", "fairpix local", "FAIRPIX_URL");
    }
}
