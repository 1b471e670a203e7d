package com.fairpix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@link Fairpix#main} builds only the subcommand it runs ({@link Fairpix#commandLine(String[])}):
 * each one, and each of its own subcommands, parses and prints help exactly as in the whole command.
 */
class OneSubcommandTest {

    @Test
    void everySubcommandsHelpIsTheSameBuiltAloneAsInTheWholeCommand() {
        for (Class<?> c : Fairpix.SUBCOMMANDS) {
            String name = c.getAnnotation(Command.class).name();
            CommandLine alone = Fairpix.commandLine(new String[] {name, "--help"});
            if (!name.equals("help") && !name.equals("completion")) assertThat(alone.getSubcommands().keySet()).containsExactly(name);
            CommandLine whole = Fairpix.commandLine();
            for (CommandLine sub : whole.getSubcommands().get(name).getSubcommands().values()) {
                String[] args = {name, sub.getCommandName(), "--help"};
                assertThat(run(Fairpix.commandLine(args), args)).as(String.join(" ", args)).isEqualTo(run(Fairpix.commandLine(), args));
            }
            String[] args = name.equals("help") ? new String[] {"help", "usage"} : new String[] {name, "--help"};
            assertThat(run(alone, args)).as(name).isEqualTo(run(Fairpix.commandLine(), args)).contains("Usage: fairpix " + args[args.length - 2 + (name.equals("help") ? 1 : 0)]);
        }
    }

    @Test
    void theRootStillListsEverySubcommand() {
        assertThat(Fairpix.commandLine(new String[0]).getSubcommands()).hasSize(Fairpix.SUBCOMMANDS.size());
        assertThat(Fairpix.commandLine(new String[] {"--help"}).getSubcommands()).hasSize(Fairpix.SUBCOMMANDS.size());
        assertThat(Fairpix.commandLine(new String[] {"usag"}).getSubcommands()).hasSize(Fairpix.SUBCOMMANDS.size());
    }

    @Test
    void aSubcommandBuiltAloneParsesItsOptionsAndKeepsTheRootsSettings(@TempDir Path dir) throws Exception {
        Path spec = Files.writeString(dir.resolve("spec.json"), "{}");
        String[] args = {"submit", "photo.jpg", "--tenant-key", "k", "--spec", "@" + spec};
        CommandLine.ParseResult parsed = Fairpix.commandLine(args).parseArgs(args);
        // Not expanded as an @-file: the root's setExpandAtFiles(false) reached the subcommand.
        assertThat(parsed.subcommand().matchedOptionValue("--spec", "")).isEqualTo("@" + spec);
        args = new String[] {"usage", "--url", "http://127.0.0.1:1", "--admin-token", "", "--output", "csv"};
        StringWriter err = new StringWriter();
        CommandLine cl = Fairpix.commandLine(args);
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute(args)).isEqualTo(Fairpix.USAGE);
        assertThat(err.toString()).contains("FAIRPIX_ADMIN_TOKEN");
    }

    private static String run(CommandLine cl, String[] args) {
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(out));
        cl.execute(args);
        return out.toString();
    }
}
