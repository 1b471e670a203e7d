package com.fairpix.cli;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "config", mixinStandardHelpOptions = true,
        description = "Print every setting: its environment variable, properties key, value in effect, source, accepted values and meaning.")
final class ConfigCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        out.printf("%-34s %-30s %-28s %-18s %-26s %s%n", "ENV", "KEY", "VALUE", "SOURCE", "ACCEPTS", "MEANING");
        for (Map.Entry<Setting, String[]> e : FairpixConfig.fromEnvironment().describe().entrySet()) {
            Setting s = e.getKey();
            out.printf("%-34s %-30s %-28s %-18s %-26s %s%n", s.env(), s.key(), e.getValue()[0], e.getValue()[1], s.constraint().describe(), s.doc());
        }
        out.flush();
        return Fairpix.OK;
    }
}
