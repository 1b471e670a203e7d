package com.fairpix.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code fairpix} command: runs every service and does the ops work. */
@Command(name = "fairpix",
        mixinStandardHelpOptions = true,
        versionProvider = Fairpix.Version.class,
        description = "Multi-tenant image-processing farm: services and operations.%n"
                + "Settings come from flags, FAIRPIX_* environment variables, or the properties file named by FAIRPIX_CONFIG (see 'fairpix config').",
        subcommands = {
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
            CommandLine.HelpCommand.class
        })
public final class Fairpix {
    /** Exit codes shared by every subcommand. */
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;
    public static final int UNAVAILABLE = 3;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Fairpix());
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
