package com.fairpix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompletionCommandTest {
    private static String run(String... args) {
        picocli.CommandLine cl = Fairpix.commandLine();
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(new StringWriter(), true));
        assertThat(cl.execute(args)).isZero();
        return out.toString();
    }

    @Test
    void bashCompletesEveryCommandAndIsValidBash(@TempDir Path dir) throws Exception {
        String script = run("completion", "bash");
        assertThat(script).contains("complete -F").contains("_picocli_fairpix");
        for (String command : new String[] {"local", "submit", "tenants", "webhooks", "scale", "status", "completion"}) {
            assertThat(script).as(command).contains(command);
        }
        assertThat(script).as("an option of a subcommand").contains("--tenant-key").contains("--progress");
        Path f = dir.resolve("fairpix.bash");
        Files.writeString(f, script);
        // bash -n parses without running; then sourcing it must define the completion function.
        Process p = new ProcessBuilder("bash", "-c", "bash -n " + f + " && source " + f + " && complete -p fairpix").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("-F _complete_fairpix fairpix");
    }

    @Test
    void zshRunsTheBashScriptThroughBashcompinit() {
        String script = run("completion", "zsh");
        assertThat(script).startsWith("autoload -U +X compinit && compinit").contains("bashcompinit").contains("complete -F");
    }

    @Test
    void anUnknownShellIsAUsageError() {
        picocli.CommandLine cl = Fairpix.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute("completion", "fish")).isEqualTo(picocli.CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("fish").contains("bash, zsh");
    }
}
