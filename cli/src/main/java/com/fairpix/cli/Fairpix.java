package com.fairpix.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code fairpix} command: runs every service and does the ops work. */
@Command(name = "fairpix",
        mixinStandardHelpOptions = true,
        versionProvider = Fairpix.Version.class,
        description = "Multi-tenant image-processing farm: services and operations.%n"
                + "Settings come from flags, FAIRPIX_* environment variables, or the properties file named by FAIRPIX_CONFIG (see 'fairpix config').")
public final class Fairpix {
    /** Exit codes shared by every subcommand. */
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;
    public static final int UNAVAILABLE = 3;

    /**
     * Every subcommand, in the order {@code fairpix --help} lists them. Added in code rather than in
     * {@code @Command(subcommands)}, so that {@link #main} can build only the one it runs.
     */
    static final List<Class<?>> SUBCOMMANDS = List.of(
            LocalCommand.class,
            IngestApiCommand.class,
            WorkerCommand.class,
            AutoscalerCommand.class,
            SubmitCommand.class,
            JobsCommand.class,
            TenantsCommand.class,
            WebhooksCommand.class,
            ScaleCommand.class,
            TopCommand.class,
            StatusCommand.class,
            UsageCommand.class,
            ConfigCommand.class,
            DemoCommand.class,
            CompletionCommand.class,
            CommandLine.HelpCommand.class);

    public static void main(String[] args) {
        CommandLine cl = commandLine(args);
        cl.setOut(new Stdout(System.out));
        System.exit(cl.execute(args));
    }

    /**
     * Standard output as picocli prints text to it, which also hands out its bytes: a command that
     * copies an answer through as it came ({@code fairpix usage --output csv}, 26 MB for a month of
     * 10,000 tenants) skips decoding it to text and encoding it again.
     */
    static final class Stdout extends java.io.PrintWriter {
        final java.io.PrintStream bytes;

        Stdout(java.io.PrintStream bytes) {
            super(new java.io.BufferedWriter(new java.io.OutputStreamWriter(bytes, bytes.charset())), true);
            this.bytes = bytes;
        }
    }

    /** The whole command, every subcommand's model built. */
    public static CommandLine commandLine() {
        return configure(SUBCOMMANDS);
    }

    /**
     * The command for {@code args}: when they start with a subcommand's name, the root with that one
     * subcommand only. Picocli builds a command's model by reflection, options, mixins and all, and
     * building all sixteen cost a one-shot command such as {@code fairpix usage} ~0.2-0.4 s of CPU at
     * start (docs/usage.md). {@code help} and {@code completion} read the other subcommands, and
     * anything else (no subcommand, a mistyped one: picocli's suggestions) gets the whole command.
     */
    static CommandLine commandLine(String[] args) {
        if (args.length > 0 && !args[0].equals("help") && !args[0].equals("completion")) {
            for (Class<?> c : SUBCOMMANDS) {
                Command command = c.getAnnotation(Command.class);
                if (command.name().equals(args[0]) || List.of(command.aliases()).contains(args[0])) return configure(List.of(c));
            }
        }
        return commandLine();
    }

    private static CommandLine configure(List<Class<?>> subcommands) {
        CommandLine cl = new CommandLine(new Fairpix());
        // Added before the settings below, which picocli passes on to the subcommands it has by then.
        for (Class<?> c : subcommands) cl.addSubcommand(c);
        // Picocli would replace any "@FILE" argument by the file's words before a command sees it, which
        // breaks `--spec @spec.json` (the command reads the file itself, whole).
        cl.setExpandAtFiles(false);
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("fairpix: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            if (e instanceof ApiClient.ApiException api) return api.status() >= 500 ? UNAVAILABLE : FAILED;
            if (e instanceof IllegalArgumentException) return USAGE;
            if (e instanceof java.net.ConnectException || e instanceof ApiClient.UnreachableException) return UNAVAILABLE;
            return FAILED;
        });
        return cl;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Fairpix.class.getPackage().getImplementationVersion();
            return new String[] {"fairpix " + (v == null ? "dev" : v)};
        }
    }
}
