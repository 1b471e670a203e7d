package com.fairpix.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code fairpix completion bash|zsh}: the shell completion script for every command and option,
 * generated from the command model by picocli's {@link AutoComplete} (so it never goes stale).
 * The script is bash; zsh runs it through {@code bashcompinit}.
 */
@Command(name = "completion", mixinStandardHelpOptions = true,
        description = {"Print a shell completion script for fairpix.",
                "bash: source <(fairpix completion bash)   (or save it under /etc/bash_completion.d/fairpix)",
                "zsh:  source <(fairpix completion zsh)    (in ~/.zshrc)"})
final class CompletionCommand implements Callable<Integer> {
    enum Shell { bash, zsh }

    @Spec CommandSpec spec;

    @Parameters(paramLabel = "SHELL", description = "bash or zsh")
    Shell shell;

    @Override
    public Integer call() {
        String script = AutoComplete.bash("fairpix", spec.root().commandLine());
        var out = spec.commandLine().getOut();
        if (shell == Shell.zsh) {
            // picocli's script is bash; zsh's bashcompinit runs bash completion functions.
            out.println("autoload -U +X compinit && compinit");
            out.println("autoload -U +X bashcompinit && bashcompinit");
        }
        out.print(script);
        out.flush();
        return Fairpix.OK;
    }
}
