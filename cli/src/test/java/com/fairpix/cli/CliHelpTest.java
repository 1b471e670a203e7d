package com.fairpix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/** Every command's help is complete: a description, and a description for every option and parameter. */
class CliHelpTest {

    @Test
    void everyCommandOptionAndParameterIsDescribed() {
        List<String> missing = new ArrayList<>();
        List<CommandLine> all = new ArrayList<>();
        collect(Fairpix.commandLine(), all);
        for (CommandLine cl : all) {
            String name = cl.getCommandSpec().qualifiedName();
            if (cl.getCommandSpec().usageMessage().description().length == 0) missing.add(name + ": no description");
            for (OptionSpec o : cl.getCommandSpec().options()) {
                if (o.description().length == 0 || o.description()[0].isBlank()) missing.add(name + " " + o.longestName() + ": no description");
            }
            for (PositionalParamSpec p : cl.getCommandSpec().positionalParameters()) {
                if (p.description().length == 0 || p.description()[0].isBlank()) missing.add(name + " " + p.paramLabel() + ": no description");
            }
        }
        assertThat(missing).isEmpty();
        assertThat(all).extracting(c -> c.getCommandSpec().qualifiedName())
                .contains("fairpix tenants create", "fairpix tenants list", "fairpix tenants get", "fairpix tenants set",
                        "fairpix tenants suspend", "fairpix tenants activate", "fairpix tenants delete",
                        "fairpix tenants keys create", "fairpix tenants keys list", "fairpix tenants keys revoke");
    }

    @Test
    void tenantsSetHelpListsOneFlagPerTenantField() {
        String help = help("tenants", "set", "--help");
        assertThat(help).contains("--weight", "--rate", "--burst", "--daily-quota", "--max-concurrent-jobs",
                "--max-upload-bytes", "--max-pixels", "--allowed-formats", "--webhook-url", "--pool", "--output", "--admin-token", "--url");
    }

    @Test
    void anAdminCommandWithoutATokenSaysWhatIsMissingAndExitsWithTheUsageCode() {
        StringWriter err = new StringWriter();
        CommandLine cl = Fairpix.commandLine();
        cl.setErr(new PrintWriter(err));
        int code = cl.execute("tenants", "get", "acme", "--url", "http://127.0.0.1:1", "--admin-token", "");
        assertThat(code).isEqualTo(Fairpix.USAGE);
        assertThat(err.toString()).contains("FAIRPIX_ADMIN_TOKEN");
    }

    private static String help(String... args) {
        StringWriter out = new StringWriter();
        CommandLine cl = Fairpix.commandLine();
        cl.setOut(new PrintWriter(out));
        assertThat(cl.execute(args)).isZero();
        return out.toString();
    }

    private static void collect(CommandLine cl, List<CommandLine> into) {
        into.add(cl);
        cl.getSubcommands().values().stream().distinct().forEach(sub -> {
            if (!sub.getCommandSpec().name().equals("help")) collect(sub, into);
        });
    }
}
