package com.fairpix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code fairpix usage --output csv|json} copies the export through: as bytes onto standard output
 * ({@link Fairpix.Stdout}, as {@code main} runs it), as text onto any other writer; the same either way.
 */
class UsageStreamTest {
    private static final String CSV = UsageCsv.HEADER + "\n2026-11-01,tenant-é,3,2,1,1500,100,200,3000,4096\n";
    private HttpServer server;

    /** The CSV header as the ingest-api writes it (UsageController.CSV_HEADER). */
    private static final class UsageCsv {
        static final String HEADER = "day,tenant,jobs,done,failed,cpu_ms,bytes_in,bytes_out,output_pixels,peak_rss_bytes";
    }

    @BeforeEach
    void start() throws Exception {
        server = StubHttp.start("/admin/v1/usage", exchange -> {
            boolean csv = exchange.getRequestURI().getQuery().contains("format=csv");
            StubHttp.respond(exchange, 200, csv ? "text/csv; charset=utf-8" : "application/json",
                    (csv ? CSV : "{\"rows\":[]}").getBytes(StandardCharsets.UTF_8));
        });
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private String[] args(String output) {
        return new String[] {"usage", "--url", StubHttp.url(server), "--admin-token", "t", "--output", output};
    }

    @Test
    void theExportReachesStandardOutputAsTheServerSentItsBytes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CommandLine cl = Fairpix.commandLine(args("csv"));
        cl.setOut(new Fairpix.Stdout(new PrintStream(bytes, false, StandardCharsets.ISO_8859_1)));
        assertThat(cl.execute(args("csv"))).isZero();
        // UTF-8 as sent, whatever the terminal's charset (here Latin-1, which has no say over copied bytes).
        assertThat(bytes.toByteArray()).isEqualTo(CSV.getBytes(StandardCharsets.UTF_8));

        bytes.reset();
        cl = Fairpix.commandLine(args("json"));
        cl.setOut(new Fairpix.Stdout(new PrintStream(bytes, false, StandardCharsets.UTF_8)));
        assertThat(cl.execute(args("json"))).isZero();
        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("{\"rows\":[]}" + System.lineSeparator());
    }

    @Test
    void anyOtherWriterGetsTheSameText() {
        StringWriter out = new StringWriter();
        CommandLine cl = Fairpix.commandLine();
        cl.setOut(new PrintWriter(out));
        assertThat(cl.execute(args("csv"))).isZero();
        assertThat(out.toString()).isEqualTo(CSV);
    }
}
